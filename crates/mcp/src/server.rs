//! The MCP side: the server's identity and the `tools/list` and `tools/call` handlers on top of
//! rmcp, which does the JSON-RPC framing, `initialize` and `ping`.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::client::ApiClient;
use crate::tools::{Call, CallError, specs};

/// What the client's model is told about this server at `initialize`.
const INSTRUCTIONS: &str = "Tools of the Discovery Service, acting as the owner of the configured \
API key only: read their profile and work patterns, log time against one of the six foundations \
(love, strength, mission, vocation, short_term, long_term), and read and answer their coaching \
check-ins. Every result is the service's JSON; an error result carries the service's error code \
and message (for validation_failed, details name each bad field).";

/// The MCP server: each tool call is one HTTP request to the service.
#[derive(Debug, Clone)]
pub struct DiscoveryServer {
    client: ApiClient,
    /// Built once: the list never changes while the process runs.
    tools: Arc<Vec<Tool>>,
}

impl DiscoveryServer {
    pub fn new(client: ApiClient) -> Self {
        Self {
            client,
            tools: Arc::new(tools()),
        }
    }

    /// Runs tool `name`: the API's JSON as text, or an error result with the service's error.
    ///
    /// # Errors
    /// A protocol error (invalid params) only for a tool name that does not exist.
    pub async fn run(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
    ) -> Result<CallToolResult, ErrorData> {
        let call = match Call::parse(name, arguments) {
            Ok(call) => call,
            Err(CallError::UnknownTool(name)) => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool: {name}"),
                    Some(json!({ "tools": crate::tools::TOOL_NAMES })),
                ));
            }
            Err(CallError::Invalid(failure)) => return Ok(error_result(&failure.to_json())),
        };
        match self.client.send(&call.request()).await {
            Ok(answer) => Ok(CallToolResult::success(vec![ContentBlock::text(
                answer.to_string(),
            )])),
            Err(failure) => {
                tracing::info!(tool = name, code = %failure.code, status = ?failure.status, "tool call failed");
                Ok(error_result(&failure.to_json()))
            }
        }
    }
}

/// `isError: true` with the failure as JSON text: a result the model reads, not a protocol error.
fn error_result(failure: &Value) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(failure.to_string())])
}

/// The tools as rmcp describes them.
fn tools() -> Vec<Tool> {
    specs()
        .into_iter()
        .map(|spec| {
            Tool::new(spec.name, spec.description, spec.input_schema)
                .with_title(spec.title)
                .with_annotations(
                    ToolAnnotations::with_title(spec.title)
                        .read_only(spec.read_only)
                        // Nothing a tool does deletes or overwrites beyond its own entry.
                        .destructive(false)
                        // log_time is idempotent per external_task_id; respond_to_checkin
                        // refuses a second answer.
                        .idempotent(true)
                        // Only the one service is reached.
                        .open_world(false),
                )
        })
        .collect()
}

impl ServerHandler for DiscoveryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("discovery-mcp", env!("CARGO_PKG_VERSION"))
                    .with_title("Discovery Service"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.run(&request.name, request.arguments.as_ref())
            .await
            .map(CallToolResponse::from)
    }
}
