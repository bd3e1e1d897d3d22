//! A folder served whole by `serve`, in a process of its own, for tests that watch
//! the server's memory from the outside (`tests/folder_memory.rs`).
//!
//! `folder-server <folder> <cache bytes>`: listens on `127.0.0.1:0` with two workers,
//! prints the port on the first line of stdout, and exits when its stdin closes, so it
//! never outlives the test that started it.

use std::io::{Read, Write};

use embed_assets::ServeAssets;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [folder, cache] = args.as_slice() else {
        eprintln!("usage: folder-server <folder> <cache bytes>");
        std::process::exit(2);
    };
    let cache: u64 = cache.parse().expect("cache bytes: a number");
    let service = ServeAssets::folder(folder).cache_size(cache);
    std::thread::spawn(|| {
        let mut sink = [0u8; 64];
        while matches!(std::io::stdin().read(&mut sink), Ok(n) if n > 0) {}
        std::process::exit(0);
    });
    let server = embed_assets::Server::bind("127.0.0.1:0")
        .expect("bind 127.0.0.1:0")
        .workers(2)
        .shutdown_on_signals(false);
    let mut out = std::io::stdout();
    writeln!(out, "{}", server.local_addr().port()).expect("stdout");
    out.flush().expect("stdout");
    server
        .serve(service, axum::Router::new())
        .expect("embed_assets::serve");
}
