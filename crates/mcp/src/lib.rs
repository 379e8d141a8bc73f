//! discovery-mcp: a Model Context Protocol server over stdio that exposes five tools of the
//! Discovery Service (profile, work patterns, logging time, check-ins) to an AI client, each
//! tool one HTTP call to the service with the owner's personal API key. See the README.

pub mod client;
pub mod config;
pub mod server;
pub mod tools;
