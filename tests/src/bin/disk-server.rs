//! The fixture site with a 1 MiB limit, in a process of its own, with its on-disk
//! files read from a folder and in chunks the caller chooses, for tests that watch the
//! server's memory from the outside (`tests/slow_clients.rs`).
//!
//! `disk-server <disk root> <chunk bytes>`: listens on `127.0.0.1:0`, prints the port
//! on the first line of stdout, and exits when its stdin closes, so it never outlives
//! the test that started it.

use std::io::{Read, Write};

use embed_assets::{Assets, embed_assets};

/// `big.bin` (over 1 MiB) is listed, not embedded, and read from the disk root.
static ON_DISK: Assets =
    embed_assets!("fixtures/site", max_embed_size = "1 MiB", on_disk = "allow");

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, chunk] = args.as_slice() else {
        eprintln!("usage: disk-server <disk root> <chunk bytes>");
        std::process::exit(2);
    };
    let chunk: usize = chunk.parse().expect("chunk bytes: a number");
    let service = ON_DISK.service().disk_root(root).chunk_size(chunk);
    service
        .check_disk()
        .expect("every on-disk file under the root");
    std::thread::spawn(|| {
        let mut sink = [0u8; 64];
        while matches!(std::io::stdin().read(&mut sink), Ok(n) if n > 0) {}
        std::process::exit(0);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{port}").expect("print the port");
        stdout.flush().expect("flush stdout");
        drop(stdout);
        axum::serve(listener, integration_tests::app(service))
            .await
            .expect("axum server");
    });
}
