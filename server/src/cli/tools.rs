//! `tools list` and `tools call`: the agent tool surface.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use onebot_gateway_client::{Error, pb};

use super::connection::Connection;
use super::output::{self, outln};

/// `tools` subcommands.
#[derive(Subcommand, Debug)]
pub enum ToolsCommand {
    /// List the tools with their descriptions (and schemas with --json).
    List(ListArgs),
    /// Call a tool with a JSON object of arguments; exits 1 when the tool
    /// reports a failure.
    Call(CallArgs),
}

impl ToolsCommand {
    /// How the command reaches the gateway.
    pub fn conn(&self) -> &Connection {
        match self {
            ToolsCommand::List(a) => &a.conn,
            ToolsCommand::Call(a) => &a.conn,
        }
    }
}

/// Arguments of `tools list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `tools call`.
#[derive(Args, Debug)]
pub struct CallArgs {
    /// Tool name or alias (e.g. `qq_get_history`).
    pub name: String,
    /// Arguments as a JSON object, e.g. '{"target":"group:20000003"}'.
    #[arg(default_value = "{}")]
    pub arguments: String,
    #[command(flatten)]
    pub conn: Connection,
}

/// Runs a `tools` subcommand.
pub async fn run(command: ToolsCommand) -> Result<ExitCode, Error> {
    match command {
        ToolsCommand::List(args) => {
            let client = args.conn.client()?;
            let tools = client.list_tools().await?;
            if args.conn.json {
                let response = pb::ListToolsResponse { tools };
                output::print_message(&response)?;
            } else {
                for tool in &tools {
                    outln!("{}", render(tool));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ToolsCommand::Call(args) => {
            let client = args.conn.client()?;
            let result = client.call_tool(args.name, args.arguments).await?;
            if args.conn.json {
                output::print_message(&result)?;
            } else if result.is_error {
                eprintln!("{}", result.text);
            } else {
                outln!("{}", result.text);
            }
            Ok(if result.is_error {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

/// `name (aliases) [read-only]: first line of the description`.
pub fn render(tool: &pb::Tool) -> String {
    let mut line = tool.name.clone();
    if !tool.aliases.is_empty() {
        line.push_str(&format!(" ({})", tool.aliases.join(", ")));
    }
    line.push_str(if tool.read_only {
        " [read-only]"
    } else {
        " [write]"
    });
    let summary = tool.description.lines().next().unwrap_or_default();
    if !summary.is_empty() {
        line.push_str(": ");
        line.push_str(summary);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_name_aliases_and_summary() {
        let tool = pb::Tool {
            name: "qq_get_history".into(),
            description: "Reads history.\nMore.".into(),
            read_only: true,
            aliases: vec!["snowluma_get_history".into()],
            ..Default::default()
        };
        assert_eq!(
            render(&tool),
            "qq_get_history (snowluma_get_history) [read-only]: Reads history."
        );
    }
}
