//! One server under test, on 127.0.0.1: `bench-server --mode ours|servedir [--port N]
//! [--chunk BYTES]`. `bench-disk` starts its own copies; this binary is for trying a
//! server by hand (`curl -o /dev/null 127.0.0.1:PORT/video.bin`).

use std::process::ExitCode;

fn main() -> ExitCode {
    let options = match bench::server::Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("bench-server: {message}");
            return ExitCode::from(2);
        }
    };
    match bench::server::run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bench-server: {err}");
            ExitCode::FAILURE
        }
    }
}
