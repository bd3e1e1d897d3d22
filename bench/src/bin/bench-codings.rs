//! Size against decoding speed of the stored codings (br, zstd, gzip), for the
//! example site and bench-static's site: what a client downloads and what it spends
//! decoding it. See `bench/README.md`.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin bench-codings [-- --rounds N]
//! ```

use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use embed_assets::{embed_assets, Assets, Encoding};

static EXAMPLE: Assets = embed_assets!("../examples/public", compression = "best");

const CODINGS: [Encoding; 3] = [Encoding::Brotli, Encoding::Zstd, Encoding::Gzip];

fn decode(encoding: Encoding, body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    match encoding {
        Encoding::Brotli => brotli_decompressor::Decompressor::new(body, 64 * 1024)
            .read_to_end(&mut out)
            .ok()?,
        Encoding::Zstd => return zstd::decode_all(body).ok(),
        Encoding::Gzip => flate2::read::GzDecoder::new(body)
            .read_to_end(&mut out)
            .ok()?,
        _ => return None,
    };
    Some(out)
}

/// Per coding: (files, identity bytes of those files, stored bytes, best decode
/// seconds over `rounds`); `None` when a body does not decode to the file.
fn measure(assets: &Assets, rounds: usize) -> Option<Vec<(usize, u64, u64, f64)>> {
    let mut rows = Vec::new();
    for encoding in CODINGS {
        let bodies: Vec<(&[u8], &[u8])> = assets
            .iter()
            .filter_map(|a| Some((a.variant(encoding)?.body(), a.body(Encoding::Identity)?)))
            .collect();
        let identity: u64 = bodies.iter().map(|(_, id)| id.len() as u64).sum();
        let stored: u64 = bodies.iter().map(|(b, _)| b.len() as u64).sum();
        let mut best = f64::INFINITY;
        for _ in 0..rounds {
            let start = Instant::now();
            for (body, original) in &bodies {
                if decode(encoding, body)?.as_slice() != *original {
                    return None;
                }
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        rows.push((bodies.len(), identity, stored, best));
    }
    Some(rows)
}

fn main() -> ExitCode {
    let mut rounds = 20;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--rounds", Some(n)) if n > 0 => rounds = n,
            _ => {
                eprintln!("usage: bench-codings [--rounds N]");
                return ExitCode::from(2);
            }
        }
    }
    for (name, assets) in [
        ("example site (examples/public)", &EXAMPLE),
        ("bench-static site", &bench::site::SITE),
    ] {
        let Some(rows) = measure(assets, rounds) else {
            eprintln!("bench-codings: a body of {name} does not decode to its file");
            return ExitCode::FAILURE;
        };
        println!("\n== {name}: decode time is the best of {rounds} rounds, one core");
        println!(
            "{:<6} {:>5} {:>12} {:>12} {:>7} {:>12} {:>10}",
            "coding", "files", "identity B", "stored B", "ratio", "decode MB/s", "decode ms"
        );
        for (encoding, (files, identity, stored, secs)) in CODINGS.iter().zip(rows) {
            println!(
                "{:<6} {:>5} {:>12} {:>12} {:>7.3} {:>12.0} {:>10.3}",
                encoding.as_str(),
                files,
                identity,
                stored,
                stored as f64 / identity.max(1) as f64,
                identity as f64 / secs / 1e6,
                secs * 1e3
            );
        }
    }
    ExitCode::SUCCESS
}
