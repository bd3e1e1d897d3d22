//! The cost of one request inside the process, without sockets or HTTP parsing: each
//! app of `bench-static` (the same axum `Router` the servers run) is called as a tower
//! service with a prebuilt request, and its ready response dropped. What is left is the
//! work each implementation does per request: routing, header parsing, lookups and
//! building the response. See `bench/README.md`.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin bench-respond [-- --iters N --rounds N --modes a,b]
//! ```
//!
//! The figures are nanoseconds per request (median of the rounds) and the ratio to the
//! ceiling. For a profile of one case: `valgrind --tool=callgrind
//! target/release/bench-respond --modes ours --cases 304 --iters 20000 --rounds 1`.

use std::future::Future;
use std::pin::pin;
use std::process::ExitCode;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use axum::body::Body;
use axum::http::{header, HeaderValue, Request, Response, StatusCode};
use axum::Router;
use bench::procs::median;
use bench::site::{app, Mode};
use tower_service::Service;

const USAGE: &str = "usage: bench-respond [--iters N] [--rounds N] [--modes LIST] [--cases LIST]
  --iters N     requests per measurement (default 200000)
  --rounds N    measurements per mode and case, interleaved; the median is shown (default 5)
  --modes LIST  comma-separated: ceiling,ours,memory-serve,static-serve,rust-embed
                (default: all of them; ServeDir reads the disk and is left out)
  --cases LIST  comma-separated: index,br,favicon,304 (default: all)";

/// One request shape, as `bench-static` sends it.
struct Case {
    name: &'static str,
    path: &'static str,
    br: bool,
    if_none_match: bool,
    expect: StatusCode,
}

const CASES: [Case; 4] = [
    Case {
        name: "index",
        path: "/index.html",
        br: false,
        if_none_match: false,
        expect: StatusCode::OK,
    },
    Case {
        name: "br",
        path: "/js/app.js",
        br: true,
        if_none_match: false,
        expect: StatusCode::OK,
    },
    Case {
        name: "favicon",
        path: "/favicon.ico",
        br: false,
        if_none_match: false,
        expect: StatusCode::OK,
    },
    Case {
        name: "304",
        path: "/css/app.css",
        br: true,
        if_none_match: true,
        expect: StatusCode::NOT_MODIFIED,
    },
];

const MODES: [Mode; 5] = [
    Mode::Ceiling,
    Mode::Ours,
    Mode::MemoryServe,
    Mode::StaticServe,
    Mode::RustEmbed,
];

struct Args {
    iters: u32,
    rounds: usize,
    modes: Vec<Mode>,
    cases: Vec<&'static Case>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        iters: 200_000,
        rounds: 5,
        modes: MODES.to_vec(),
        cases: CASES.iter().collect(),
    };
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        let mut value = || argv.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--iters" => args.iters = number(&value()?)?,
            "--rounds" => args.rounds = number(&value()?)?,
            "--modes" => {
                args.modes = value()?
                    .split(',')
                    .map(|name| {
                        Mode::from_name(name)
                            .filter(|mode| MODES.contains(mode))
                            .ok_or(format!("unknown mode `{name}`"))
                    })
                    .collect::<Result<_, _>>()?
            }
            "--cases" => {
                args.cases = value()?
                    .split(',')
                    .map(|name| {
                        CASES
                            .iter()
                            .find(|case| case.name == name)
                            .ok_or(format!("unknown case `{name}`"))
                    })
                    .collect::<Result<_, _>>()?
            }
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if args.iters == 0 || args.rounds == 0 {
        return Err("--iters and --rounds must be positive".into());
    }
    Ok(args)
}

fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a number"))
}

/// The request of `case`; for the 304 case with the ETag this app sent for the URL
/// (each crate has its own ETags), as `bench-static` does.
fn request(router: &mut Router, case: &Case) -> Request<Body> {
    let build = |if_none_match: Option<HeaderValue>| {
        let mut builder = Request::get(case.path).header(header::HOST, "127.0.0.1");
        if case.br {
            builder = builder.header(header::ACCEPT_ENCODING, "br, gzip");
        }
        if let Some(etag) = if_none_match {
            builder = builder.header(header::IF_NONE_MATCH, etag);
        }
        builder.body(Body::empty()).unwrap_or_default()
    };
    let plain = build(None);
    if !case.if_none_match {
        return plain;
    }
    let etag = call(router, plain).headers().get(header::ETAG).cloned();
    build(etag)
}

/// Calls `router` once and waits for its response (every app here answers at once).
fn call(router: &mut Router, request: Request<Body>) -> Response<Body> {
    let mut cx = Context::from_waker(Waker::noop());
    let mut future = pin!(Service::call(router, request));
    loop {
        if let Poll::Ready(result) = future.as_mut().poll(&mut cx) {
            return match result {
                Ok(response) => response,
                Err(never) => match never {},
            };
        }
    }
}

/// Nanoseconds per request over `iters` requests; `None` if a response had the wrong
/// status (a wrong answer is not a fast one).
fn measure(router: &mut Router, case: &Case, iters: u32) -> Option<f64> {
    let template = request(router, case);
    let fresh = || {
        let mut copy = Request::new(Body::empty());
        *copy.uri_mut() = template.uri().clone();
        *copy.headers_mut() = template.headers().clone();
        copy
    };
    if call(router, fresh()).status() != case.expect {
        return None;
    }
    let start = Instant::now();
    for _ in 0..iters {
        if call(router, fresh()).status() != case.expect {
            return None;
        }
    }
    Some(start.elapsed().as_nanos() as f64 / f64::from(iters))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("bench-respond: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    // Tokio is needed only for the apps that spawn nothing but expect a runtime context.
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bench-respond: tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let _guard = runtime.enter();
    let mut routers: Vec<(Mode, Router)> = args.modes.iter().map(|&m| (m, app(m))).collect();
    // samples[case][mode]
    let mut samples = vec![vec![Vec::new(); routers.len()]; args.cases.len()];
    let mut failed = false;
    for _ in 0..args.rounds {
        for (c, case) in args.cases.iter().enumerate() {
            for (m, (mode, router)) in routers.iter_mut().enumerate() {
                match measure(router, case, args.iters) {
                    Some(ns) => samples[c][m].push(ns),
                    None => {
                        eprintln!(
                            "bench-respond: {} answered {} wrongly",
                            mode.name(),
                            case.path
                        );
                        failed = true;
                    }
                }
            }
        }
    }
    println!(
        "ns per request inside the process (median of {} rounds of {} requests); x = ceiling / mode (higher is faster)",
        args.rounds, args.iters
    );
    print!("{:<10}", "case");
    for (mode, _) in &routers {
        print!("{:>22}", mode.name());
    }
    println!();
    for (c, case) in args.cases.iter().enumerate() {
        let medians: Vec<Option<f64>> = samples[c].iter().map(|s| median(s)).collect();
        let ceiling = routers
            .iter()
            .position(|(mode, _)| *mode == Mode::Ceiling)
            .and_then(|i| medians[i]);
        print!("{:<10}", case.name);
        for median in &medians {
            let cell = match (median, ceiling) {
                (Some(ns), Some(ceiling)) => format!("{ns:.0} ns ({:.2}x)", ceiling / ns),
                (Some(ns), None) => format!("{ns:.0} ns"),
                (None, _) => "wrong".to_owned(),
            };
            print!("{cell:>22}");
        }
        println!();
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
