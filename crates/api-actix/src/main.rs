//! `discovery-api`: reads the settings, builds the application and serves until stopped.

use api_actix::startup::Application;
use api_actix::startup::adapters::openai_config;
use api_actix::telemetry;
use settings::api::ApiSettings as Settings;
use settings::llm::LlmSettings;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // `.env` is read once, before logging starts, so a `RUST_LOG` in it counts too.
    let read = {
        let vars = settings::Vars::environment_with_dotenv();
        telemetry::init(&vars);
        Settings::from_vars(std::env::args().skip(1), &vars)
    };
    let settings = match read {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("discovery-api: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    // The model client judges its own values (URL shape, ranges): a bad one stops the service
    // here, as any bad setting does, before anything is opened.
    if let LlmSettings::OpenAi(llm) = &settings.llm
        && let Err(e) = openai_config(llm)
    {
        eprintln!("discovery-api: {e}");
        return std::process::ExitCode::from(2);
    }
    let app = match Application::build(settings).await {
        Ok(app) => app,
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), "start-up failed");
            return std::process::ExitCode::FAILURE;
        }
    };
    match app.run_until_stopped().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "server stopped with an error");
            std::process::ExitCode::FAILURE
        }
    }
}
