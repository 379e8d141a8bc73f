//! Wiring: opens the database (running migrations), binds the listener and builds the server.

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::{App, HttpServer, web};
use adapters_diesel::Database;
use anyhow::Context;

use crate::config::Settings;
use crate::routes;

/// A built, bound, not yet running service.
#[allow(missing_debug_implementations)] // actix's `Server` has no Debug
pub struct Application {
    port: u16,
    server: Server,
}

impl Application {
    /// Connects to the database (migrating it) and binds `settings.bind_addr` (port 0 picks a free one).
    ///
    /// # Errors
    /// When the database cannot be opened or migrated, or the address cannot be bound.
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let config = settings.database.clone();
        let db = tokio::task::spawn_blocking(move || Database::connect(&config))
            .await
            .context("opening the database")?
            .context("opening the database")?;
        let listener = TcpListener::bind(settings.bind_addr)
            .with_context(|| format!("binding {}", settings.bind_addr))?;
        let port = listener.local_addr()?.port();
        tracing::info!(address = %listener.local_addr()?, backend = ?db.backend(), dev = settings.dev, "listening");
        let db = web::Data::new(db);
        let server = HttpServer::new(move || {
            App::new()
                .app_data(db.clone())
                .service(routes::health::healthz)
                .service(routes::health::readyz)
        })
        .listen(listener)?
        .run();
        Ok(Self { port, server })
    }

    #[must_use]
    pub const fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT or SIGTERM (actix finishes in-flight requests first).
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}
