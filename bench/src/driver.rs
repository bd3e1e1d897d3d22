//! What the drivers that load child servers with wrk (`bench-static`, `bench-arena`)
//! share: their common options ([`WrkArgs`]), the start of a run ([`WrkArgs::setup`]),
//! its rounds over the child servers ([`WrkArgs::run_rounds`]), and `main`'s exit codes
//! ([`main`], [`serve`]).

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::child::{accounted_and_machine_cpu, ChildServer};
use crate::rounds::{self, Cell};
use crate::serving::{Options, ServeMode};
use crate::{procs, wrk};

/// The options every wrk driver takes: `--rounds N`, `--duration SECS`, `--warmup
/// SECS`, `--connections N`, `--redo-noisy N`, `--servers LIST`, `--no-pin`, `--nginx
/// PATH`, `--wrk PATH`, `--raw`, `--pipeline N`.
#[derive(Debug, Clone)]
pub struct WrkArgs {
    /// Interleaved rounds.
    pub rounds: usize,
    /// The length of each wrk run, whole seconds.
    pub seconds: u64,
    /// The length of the warm-up runs; 0: none.
    pub warmup: u64,
    /// wrk's open connections, all on one wrk thread.
    pub connections: usize,
    /// Rounds that may be run again because other processes were busy.
    pub redo_noisy: usize,
    /// Only these servers; `None`: all.
    pub servers: Option<Vec<String>>,
    /// Pin the servers to one CPU and wrk to another.
    pub pin: bool,
    /// The nginx binary, if given.
    pub nginx: Option<PathBuf>,
    /// The wrk binary, if given.
    pub wrk: Option<PathBuf>,
    /// Print every sample.
    pub raw: bool,
    /// Requests wrk writes at once on a connection (HTTP/1.1 pipelining); 1: none.
    pub pipeline: usize,
}

/// Where a run's servers and wrk go, and which wrk runs.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The CPUs this process may use.
    pub cpus: usize,
    /// The CPU every server is pinned to; `None`: not pinned.
    pub server_cpu: Option<usize>,
    /// The CPU wrk (and this process) is pinned to; `None`: not pinned.
    pub client_cpu: Option<usize>,
    /// The wrk binary.
    pub wrk: PathBuf,
}

impl WrkArgs {
    /// The defaults but the length of a run and of the warm-up: 5 rounds, 64
    /// connections, 3 redos, every server, pinned, nginx and wrk found on `PATH`, no raw
    /// samples.
    pub fn new(seconds: u64, warmup: u64) -> Self {
        WrkArgs {
            rounds: 5,
            seconds,
            warmup,
            connections: 64,
            redo_noisy: 3,
            servers: None,
            pin: true,
            nginx: None,
            wrk: None,
            raw: false,
            pipeline: 1,
        }
    }

    /// Parses `argv` over these defaults; `Ok(None)` for `-h`/`--help`. A server name
    /// in `--servers` must be `nginx` or one `known` takes. An argument that is not a
    /// common option goes to `extra` with a way to take its value; `extra` returns
    /// whether it took the argument.
    ///
    /// # Errors
    /// A message naming the bad, unknown or incomplete argument.
    pub fn parse(
        mut self,
        argv: Vec<String>,
        known: impl Fn(&str) -> bool,
        mut extra: impl FnMut(&str, &mut dyn FnMut() -> Result<String, String>) -> Result<bool, String>,
    ) -> Result<Option<Self>, String> {
        let mut argv = argv.into_iter();
        while let Some(arg) = argv.next() {
            let mut value = || argv.next().ok_or_else(|| format!("{arg} needs a value"));
            let number = |text: String, min, max| crate::whole_number(&text, min, max);
            match arg.as_str() {
                "--rounds" => self.rounds = number(value()?, 1, 100)? as usize,
                "--duration" => self.seconds = number(value()?, 1, 60)?,
                "--warmup" => self.warmup = number(value()?, 0, 60)?,
                "--connections" => self.connections = number(value()?, 1, 1000)? as usize,
                "--redo-noisy" => self.redo_noisy = number(value()?, 0, 100)? as usize,
                "--servers" => {
                    let list: Vec<String> =
                        value()?.split(',').map(|s| s.trim().to_owned()).collect();
                    for name in &list {
                        if name != "nginx" && !known(name) {
                            return Err(format!("unknown server `{name}`"));
                        }
                    }
                    self.servers = Some(list);
                }
                "--no-pin" => self.pin = false,
                "--nginx" => self.nginx = Some(value()?.into()),
                "--wrk" => self.wrk = Some(value()?.into()),
                "--raw" => self.raw = true,
                "--pipeline" => self.pipeline = number(value()?, 1, 256)? as usize,
                "-h" | "--help" => return Ok(None),
                other => {
                    if !extra(other, &mut value)? {
                        return Err(format!("unknown argument `{other}`"));
                    }
                }
            }
        }
        Ok(Some(self))
    }

    /// Whether the server called `name` is measured (`--servers`).
    pub fn wants(&self, name: &str) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|list| list.iter().any(|s| s == name))
    }

    /// The nginx binary: `--nginx`, or nginx on `PATH` or in `/usr/sbin`.
    pub fn nginx_path(&self) -> Option<PathBuf> {
        self.nginx.clone().or_else(|| procs::find_program("nginx"))
    }

    /// One wrk run as asked: `connections` on one thread for `seconds`, pinned to
    /// `cpu`.
    pub fn load(&self, cpu: Option<usize>) -> wrk::Load {
        wrk::Load {
            connections: self.connections,
            seconds: self.seconds,
            cpu,
            pipeline: self.pipeline,
        }
    }

    /// Runs the rounds asked for ([`rounds::run`]) over `cells[server][case]`,
    /// `one(server, s, c, cell)` measuring one child server on one case; then notes in
    /// each server's first cell that its process died, if it did. Returns the note on
    /// the noise.
    pub fn run_rounds(
        &self,
        servers: &mut [ChildServer],
        cells: &mut [Vec<Cell>],
        mut one: impl FnMut(&ChildServer, usize, usize, &mut Cell),
    ) -> String {
        let plan = rounds::Plan {
            rounds: self.rounds,
            redo_noisy: self.redo_noisy,
        };
        let noise = rounds::run(
            plan,
            cells,
            || accounted_and_machine_cpu(servers),
            |s, c, cell| one(&servers[s], s, c, cell),
        );
        for (server, row) in servers.iter_mut().zip(cells) {
            if !server.alive() {
                row[0].problems.push("the server process died".into());
            }
        }
        noise
    }

    /// The start of a run: pins this process to wrk's CPU (the servers are children
    /// pinned to theirs), finds wrk, and prints the command line and the machine, each
    /// line after `program: `.
    ///
    /// # Errors
    /// This process could not be pinned, or wrk was not found.
    pub fn setup(&self, program: &str) -> Result<Setup, String> {
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        let (server_cpu, client_cpu) = rounds::cpus(self.pin);
        if let Some(cpu) = client_cpu {
            procs::pin_self(cpu)?;
        }
        let wrk = self
            .wrk
            .clone()
            .or_else(|| procs::find_program("wrk"))
            .ok_or(
                "wrk not found: install it with `apt-get install -y wrk` (or pass --wrk PATH)",
            )?;
        let command_line: Vec<String> = std::env::args().collect();
        println!("{program}: {}", command_line.join(" "));
        println!("{program}: {}", rounds::machine_note());
        Ok(Setup {
            cpus,
            server_cpu,
            client_cpu,
            wrk,
        })
    }
}

/// A driver's `main` once its arguments are `parsed`: the usage for `--help`, exit
/// code 2 with the message and the usage for a bad argument; else `run`, exit code 0
/// when it returns `Ok(true)`, 1 when some checks or runs failed or it could not run.
pub fn main<A>(
    program: &str,
    usage: &str,
    parsed: Result<Option<A>, String>,
    run: impl FnOnce(&A) -> Result<bool, String>,
) -> ExitCode {
    let args = match parsed {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{usage}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("{program}: {message}\n{usage}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("{program}: some checks or runs failed; see PROBLEMS above");
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("{program}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// A driver's `serve` subcommand: parses `args` (the words after `serve`) and `run`s
/// that server; exit code 2 for a bad argument, 1 when the server failed.
pub fn serve<M: ServeMode>(
    program: &str,
    args: Vec<String>,
    run: impl FnOnce(&Options<M>) -> io::Result<()>,
) -> ExitCode {
    let options = match Options::parse(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{program} serve: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{program} serve: {err}");
            ExitCode::FAILURE
        }
    }
}
