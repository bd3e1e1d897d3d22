//! The fixture site with a 1 MiB limit, in a process of its own, with its on-disk
//! files read from a folder and in chunks the caller chooses, for tests that watch the
//! server's memory from the outside (`tests/slow_clients.rs`).
//!
//! `disk-server <disk root> <chunk bytes>`: listens on `127.0.0.1:0`, prints the port
//! on the first line of stdout, and exits when its stdin closes, so it never outlives
//! the test that started it. The server is axum's (`axum::serve`, the service as the
//! `Router`'s fallback), or with `EMBED_TEST_FRAMEWORK=serve` the library's own
//! (`embed_assets::Server`, two workers, the service in front of that `Router`).

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
    if std::env::var("EMBED_TEST_FRAMEWORK").as_deref() == Ok("serve") {
        let server = embed_assets::Server::bind("127.0.0.1:0")
            .expect("bind 127.0.0.1:0")
            .workers(2)
            .shutdown_on_signals(false);
        print_port(server.local_addr().port());
        let app = integration_tests::app(service.clone());
        server.serve(service, app).expect("embed_assets::serve");
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        print_port(listener.local_addr().expect("local address").port());
        axum::serve(listener, integration_tests::app(service))
            .await
            .expect("axum server");
    });
}

/// The first line of stdout, which the test reads.
fn print_port(port: u16) {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{port}").expect("print the port");
    stdout.flush().expect("flush stdout");
}
