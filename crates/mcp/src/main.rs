//! The `discovery-mcp` binary: reads the configuration, then speaks MCP on stdin/stdout until
//! the client closes stdin. Logs go to stderr only: stdout carries nothing but the protocol.

use std::process::ExitCode;

use clap::Parser;
use mcp::client::ApiClient;
use mcp::config::Config;
use mcp::server::DiscoveryServer;
use rmcp::ServiceExt;

/// An MCP server (stdio) for the Discovery Service, acting as the owner of a personal API key.
#[derive(Debug, Parser)]
#[command(name = "discovery-mcp", version, after_help = concat!(
    "Environment:\n  DISCOVERY_API_KEY  the personal API key (required; never pass it as an argument)\n",
    "  DISCOVERY_URL      the service's base URL (overridden by --url)\n",
    "  RUST_LOG           log filter for stderr (default: info)"
))]
struct Cli {
    /// The service's base URL [default: $DISCOVERY_URL, else http://127.0.0.1:8011].
    #[arg(long, value_name = "URL")]
    url: Option<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let config = match Config::from_parts(cli.url, &settings::Vars::environment()) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("discovery-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    if config.sends_key_in_clear() {
        tracing::warn!(url = %config.base_url, "the API key will travel unencrypted (http to a host that is not loopback)");
    }
    let client = match ApiClient::new(&config) {
        Ok(client) => client,
        Err(error) => {
            eprintln!("discovery-mcp: cannot build the HTTP client: {error}");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(url = %config.base_url, "serving MCP on stdio");
    match serve(DiscoveryServer::new(client)).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Serves until the client hangs up.
async fn serve(server: DiscoveryServer) -> Result<(), Box<dyn std::error::Error>> {
    let running = server.serve(rmcp::transport::stdio()).await?;
    let reason = running.waiting().await?;
    tracing::info!(?reason, "the client closed the session");
    Ok(())
}

/// Human-readable lines on stderr, without colour codes (clients show stderr in log files).
fn init_logging() {
    let filter = settings::service::log_filter(&settings::Vars::environment());
    let filter = tracing_subscriber::EnvFilter::try_new(filter).unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new(settings::service::DEFAULT_LOG_FILTER)
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
}
