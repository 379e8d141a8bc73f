//! The service in-process (as the CLI tests' harness starts it) and the routes the bench calls.

use api_actix::startup::Application;
use serde_json::{Value, json};
use settings::api::ApiSettings as Settings;

pub(crate) struct Service {
    pub(crate) base: String,
    http: reqwest::Client,
}

pub(crate) struct Person {
    pub(crate) id: String,
    pub(crate) key: String,
}

impl Service {
    pub(crate) async fn start(database_url: &str) -> Self {
        let vars = [
            ("DATABASE_URL", database_url.to_owned()),
            ("BIND_ADDR", "127.0.0.1:0".to_owned()),
            (
                "JWT_SECRET",
                "bench-jwt-secret-of-at-least-32-bytes!".to_owned(),
            ),
        ];
        let settings = Settings::from_lookup(["--dev".to_owned()], |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
        })
        .expect("bench settings are valid");
        let app = Application::build(settings)
            .await
            .expect("the service builds");
        let port = app.port();
        tokio::spawn(app.run_until_stopped());
        Self {
            base: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::new(),
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Signs `email` in through dev login and creates a personal API key.
    pub(crate) async fn person(&self, email: &str) -> Person {
        let browser = reqwest::Client::builder()
            .cookie_store(true)
            .build()
            .unwrap();
        let login = browser
            .post(self.url("/api/auth/dev-login"))
            .header("Origin", &self.base)
            .json(&json!({ "email": email }))
            .send()
            .await
            .unwrap();
        assert_eq!(login.status(), 200, "dev login");
        let me: Value = browser
            .get(self.url("/api/me"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let created = browser
            .post(self.url("/api/me/api-keys"))
            .header("Origin", &self.base)
            .json(&json!({ "name": "scale" }))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), 201, "creating the API key");
        let key: Value = created.json().await.unwrap();
        Person {
            id: me["id"].as_str().expect("the person's id").to_owned(),
            key: key["key"].as_str().expect("the key").to_owned(),
        }
    }

    /// `POST /integration/rules`: the rule's id, once it answers 201.
    pub(crate) async fn add_rule(
        &self,
        key: &str,
        kind: &str,
        pattern: &str,
        foundation: &str,
    ) -> String {
        let response = self
            .http
            .post(self.url("/integration/rules"))
            .header("X-API-Key", key)
            .json(&json!({"match": {kind: pattern}, "foundation": foundation}))
            .send()
            .await
            .unwrap();
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        assert_eq!(
            status, 201,
            "POST /integration/rules {kind} {pattern}: {body}"
        );
        let rule: Value = serde_json::from_str(&body).unwrap();
        rule["id"].as_str().expect("the rule's id").to_owned()
    }

    pub(crate) async fn delete_rule(&self, key: &str, id: &str) {
        let response = self
            .http
            .delete(self.url(&format!("/integration/rules/{id}")))
            .header("X-API-Key", key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 204, "DELETE /integration/rules/{id}");
    }

    /// `GET /integration/reclassification`: whether a job is running, its `done` and `total`.
    pub(crate) async fn reclassification(&self, key: &str) -> (bool, u64, u64) {
        let answer: Value =
            serde_json::from_slice(&self.get(key, "/integration/reclassification").await)
                .expect("the progress is JSON");
        (
            answer["state"] == "running",
            answer["done"].as_u64().expect("done"),
            answer["total"].as_u64().expect("total"),
        )
    }

    /// `POST /integration/task-mappings/batch` with `body`: how many entries it created.
    pub(crate) async fn post_batch(&self, key: &str, body: String) -> u64 {
        let response = self
            .http
            .post(self.url("/integration/task-mappings/batch"))
            .header("X-API-Key", key)
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            200,
            "POST /integration/task-mappings/batch"
        );
        let answer: Value = response.json().await.unwrap();
        answer["created"].as_u64().expect("created")
    }

    /// The body of `GET path`, read whole, once it answers 200.
    pub(crate) async fn get(&self, key: &str, path: &str) -> Vec<u8> {
        let response = self
            .http
            .get(self.url(path))
            .header("X-API-Key", key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "GET {path}");
        response.bytes().await.unwrap().to_vec()
    }
}
