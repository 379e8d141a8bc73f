//! `discovery-api`: reads the settings, builds the application and serves until stopped.

use api_actix::config::Settings;
use api_actix::startup::Application;
use api_actix::telemetry;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    telemetry::init();
    let settings = match Settings::from_env(std::env::args().skip(1)) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("discovery-api: {e}");
            return std::process::ExitCode::from(2);
        }
    };
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
