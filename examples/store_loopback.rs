//! The loopback OpenSearch / Elasticsearch document store of the integration tests
//! (`tests/it/common/store_server.rs`) as a process, for measurements: `scripts/bench-store.sh`
//! indexes the Rust book into it and scores `qa eval --store` against the local index.
//!
//! `cargo run --release --features loopback-servers --example store_loopback -- [opensearch|elasticsearch]`
//! prints the server's base URL on stdout, then serves until its stdin closes; each line read
//! from stdin is answered with `REQUESTS MILLISECONDS` (requests answered so far and the time
//! spent answering them), so a caller can subtract the double's own work from a latency.

// Siblings at the crate root, as the test helpers expect (`super::http_server`).
#[path = "../tests/it/common/es_server.rs"]
mod es_server;
#[path = "../tests/it/common/http_server.rs"]
mod http_server;
#[path = "../tests/it/common/store_server.rs"]
mod store_server;

use std::io::Write;

use store_server::{Flavor, StoreServer};

fn main() {
    let flavor = match std::env::args().nth(1).as_deref() {
        None | Some("opensearch") => Flavor::OpenSearch,
        Some("elasticsearch") => Flavor::Elasticsearch,
        Some(other) => {
            eprintln!("store_loopback: unknown flavor {other:?} (opensearch or elasticsearch)");
            std::process::exit(2);
        }
    };
    let server = StoreServer::builder(flavor).start();
    println!("{}", server.url());
    let _ = std::io::stdout().flush();
    // Serve until the caller closes stdin (or kills the process).
    for _ in std::io::stdin().lines().map_while(Result::ok) {
        let (requests, ms) = server.served();
        println!("{requests} {ms:.1}");
        let _ = std::io::stdout().flush();
    }
    drop(server);
}
