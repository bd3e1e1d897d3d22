//! `bench-tls ceiling`: the most this machine's TLS allows for bench-tls's keep-alive
//! cases. A tokio-rustls server on one current-thread runtime (pinned to one CPU by its
//! parent, as the servers it stands beside), with rustls and aws-lc-rs as ours, the same
//! certificate, TLS 1.3 only. It does no HTTP work: each request head is found by its
//! empty line alone, and answered with response bytes read once from ours (head and
//! body, as ours sent them) chosen by the request target; the answers to the requests
//! read at once go in one write, so into as few TLS records as they fill.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;

/// A request head longer than this closes the connection.
const MAX_HEAD: usize = 64 << 10;

/// The prebuilt answers: request target, and the bytes sent for it. A target not in
/// the list gets the first.
type Answers = [(String, Vec<u8>)];

/// Serves `answers` over TLS on a free port of 127.0.0.1 with the chain in
/// `certificate` and the key in `key`; prints `listening on ADDR`. Runs until the
/// process ends (its parent closes standard input).
pub(crate) fn run(
    certificate: &Path,
    key: &Path,
    answers: Vec<(String, Vec<u8>)>,
) -> Result<(), String> {
    if answers.is_empty() {
        return Err("no answers".into());
    }
    let config = crate::https::server_config(certificate, key, true)?;
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let answers: &'static Answers = Box::leak(answers.into_boxed_slice());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .map_err(|e| e.to_string())?;
        announce(listener.local_addr().map_err(|e| e.to_string())?)?;
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            tokio::spawn(connection(acceptor.clone(), stream, answers));
        }
    })
}

fn announce(addr: SocketAddr) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "listening on {addr}")
        .and_then(|()| out.flush())
        .map_err(|e| e.to_string())
}

/// The answer for the request head `head`: by the target between the method and the
/// version, else the first.
fn choose<'a>(answers: &'a Answers, head: &[u8]) -> &'a [u8] {
    let target = head.split(|&b| b == b' ').nth(1).unwrap_or_default();
    answers
        .iter()
        .find(|(path, _)| path.as_bytes() == target)
        .unwrap_or(&answers[0])
        .1
        .as_slice()
}

/// One connection: the handshake, then every request read answered, until the client
/// closes it or an error.
async fn connection(acceptor: TlsAcceptor, stream: TcpStream, answers: &'static Answers) {
    let Ok(mut tls) = acceptor.accept(stream).await else {
        return;
    };
    let mut read: Vec<u8> = Vec::with_capacity(16 << 10);
    let mut out: Vec<u8> = Vec::with_capacity(64 << 10);
    loop {
        read.reserve(16 << 10);
        match tls.read_buf(&mut read).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let mut start = 0;
        while let Some(end) = read[start..].windows(4).position(|w| w == b"\r\n\r\n") {
            out.extend_from_slice(choose(answers, &read[start..start + end]));
            start += end + 4;
        }
        read.drain(..start);
        if read.len() > MAX_HEAD {
            return;
        }
        if !out.is_empty() {
            if tls.write_all(&out).await.is_err() || tls.flush().await.is_err() {
                return;
            }
            out.clear();
        }
    }
}
