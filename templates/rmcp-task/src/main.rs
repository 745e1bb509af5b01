//! An MCP server on stdio whose tool runs as a task (the 2026-07-28 tasks extension,
//! `io.modelcontextprotocol/tasks`) and stops when the client sends `tasks/cancel`.
//!
//!     cargo run --release    (an MCP client starts it and speaks on its stdin and stdout)
//!
//! A task goes only to a client that declared the extension, so `export` checks that before it
//! starts any work (rmcp 3.11 checks only after the tool returns, and would refuse the call with
//! the work already running). It logs to stderr: stdout carries the protocol.

use std::time::Duration;

use rmcp::model::{
    CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities, ContentBlock,
    CreateTaskResult, GetTaskParams, GetTaskResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

// ANCHOR: tool
#[derive(Clone, Default)]
struct Exporter {
    tasks: TaskManager,
}

#[tool_router]
impl Exporter {
    #[tool(description = "Export the archive, as a task of five parts")]
    async fn export(&self, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        // Refuse before any work starts: a task the client cannot name is work nobody can cancel.
        let declared = context.client_capabilities();
        if !declared.is_some_and(|capabilities| capabilities.supports_tasks()) {
            let tasks = ClientCapabilities::builder().enable_tasks().build();
            return Err(ErrorData::missing_required_client_capability(tasks));
        }
        let task = self.tasks.spawn(TaskOptions::new(), |task| {
            Box::pin(async move {
                for part in 1..=5 {
                    task.set_status_message(format!("part {part} of 5"));
                    eprintln!("export: part {part}");
                    tokio::select! {
                        () = export_part(part) => {}
                        () = task.cancelled() => { // tasks/cancel arrived
                            eprintln!("export: cancelled in part {part}");
                            return Err(TaskExit::Cancelled); // the task ends `cancelled`
                        }
                    }
                }
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "exported",
                )]))
            })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }
}

#[tool_handler]
impl ServerHandler for Exporter {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_tasks();
        ServerConfig::new(capabilities.build())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id) // records the cancel; the work sees it
    }
}
// ANCHOR_END: tool

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Exporter::default()
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}

/// Stands for the real work of exporting one part.
async fn export_part(_part: u32) {
    tokio::time::sleep(Duration::from_millis(400)).await;
}
