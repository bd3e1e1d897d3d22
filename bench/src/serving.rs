//! The server side of a driver's `serve` subcommand (`bench-static serve`,
//! `bench-arena serve`): its arguments, `--mode NAME [--port N] [--exit-with-stdin]`
//! ([`Options`]), the `listening on ADDR` line the driver waits for ([`announce`]), and
//! the loop of the raw ceilings ([`serve_raw`]), each with its own responses.

use std::io::{self, IoSlice, Read, Write};
use std::net::SocketAddr;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The servers a `serve` subcommand runs, by name.
pub trait ServeMode: Sized {
    /// The usage line of the subcommand's arguments.
    const USAGE: &'static str;

    /// The mode called `name`.
    fn from_name(name: &str) -> Option<Self>;
}

/// What `serve` was asked to do.
#[derive(Debug, Clone)]
pub struct Options<M> {
    /// The implementation.
    pub mode: M,
    /// Port on 127.0.0.1; 0 picks a free one (printed on start).
    pub port: u16,
    /// Exit when standard input reaches end of file, so the process never outlives the
    /// driver that holds the other end of the pipe.
    pub exit_with_stdin: bool,
}

impl<M: ServeMode> Options<M> {
    /// Parses the arguments after `serve`.
    ///
    /// # Errors
    /// A message naming the bad or missing argument.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let usage = M::USAGE;
        let mut mode = None;
        let mut port = 0;
        let mut exit_with_stdin = false;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .ok_or_else(|| format!("{name} needs a value; usage: {usage}"))
            };
            match arg.as_str() {
                "--mode" => {
                    let name = value("--mode")?;
                    mode = Some(
                        M::from_name(&name)
                            .ok_or_else(|| format!("unknown mode `{name}`; usage: {usage}"))?,
                    );
                }
                "--port" => {
                    let text = value("--port")?;
                    port = text
                        .parse()
                        .map_err(|_| format!("`{text}` is not a port number"))?;
                }
                "--exit-with-stdin" => exit_with_stdin = true,
                other => return Err(format!("unknown argument `{other}`; usage: {usage}")),
            }
        }
        Ok(Options {
            mode: mode.ok_or_else(|| format!("--mode is required; usage: {usage}"))?,
            port,
            exit_with_stdin,
        })
    }
}

impl<M> Options<M> {
    /// The address to listen on, 127.0.0.1:`port`; with `exit_with_stdin`, first starts
    /// the thread that ends the process when standard input closes.
    pub fn start(&self) -> SocketAddr {
        if self.exit_with_stdin {
            std::thread::spawn(|| {
                let mut sink = [0u8; 64];
                while matches!(io::stdin().read(&mut sink), Ok(n) if n > 0) {}
                std::process::exit(0);
            });
        }
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }
}

/// Says on standard output that the server accepts connections on `addr`: the line
/// `ChildServer::start_listening` waits for.
///
/// # Errors
/// Standard output failed.
pub fn announce(addr: SocketAddr) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "listening on {addr}")?;
    out.flush()
}

/// A raw ceiling's answer to one request: a prebuilt head on the wire and a body
/// (empty for a head alone).
pub type Reply = (&'static [u8], &'static [u8]);

/// The raw ceilings' 404.
pub const NOT_FOUND: &[u8] = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n";

/// A file's prebuilt identity answer and, when stored, its br one.
#[derive(Debug)]
pub struct Entry<W> {
    /// Without content coding.
    pub identity: W,
    /// Brotli-coded.
    pub brotli: Option<W>,
}

impl<W> Entry<W> {
    /// The br answer when there is one and `request` accepts br, else the identity.
    pub fn choose(&self, request: &httparse::Request<'_, '_>) -> &W {
        let accepts_br = field(request, "accept-encoding")
            .is_some_and(|value| value.windows(2).any(|w| w == b"br"));
        match &self.brotli {
            Some(brotli) if accepts_br => brotli,
            _ => &self.identity,
        }
    }
}

/// The value of `request`'s first field called `name` (lower case).
pub fn field<'b>(request: &httparse::Request<'_, 'b>, name: &str) -> Option<&'b [u8]> {
    request
        .headers
        .iter()
        .find(|f| f.name.eq_ignore_ascii_case(name))
        .map(|f| f.value)
}

/// A raw ceiling on `addr` until the process ends: one current-thread runtime,
/// `TCP_NODELAY` on every connection, each request head parsed with `httparse` and
/// answered with what `respond` returns for it, the answers to every whole request read
/// written together with one `writev` of heads and bodies. No `Date`, no checks: a
/// bound to measure against, not a server. Prints `listening on ADDR` once it accepts connections.
///
/// # Errors
/// The runtime or the listener failed.
pub fn serve_raw<F>(addr: SocketAddr, respond: F) -> io::Result<()>
where
    F: Fn(&httparse::Request<'_, '_>) -> Reply + Copy + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        announce(listener.local_addr()?)?;
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            tokio::spawn(connection(stream, respond));
        }
    })
}

async fn connection<F>(mut stream: TcpStream, respond: F)
where
    F: Fn(&httparse::Request<'_, '_>) -> Reply,
{
    let mut read = BytesMut::with_capacity(8192);
    let mut replies: Vec<IoSlice<'static>> = Vec::with_capacity(64);
    loop {
        // Every whole request read is answered, the answers written together.
        let mut full = false;
        while !full {
            let mut fields = [httparse::EMPTY_HEADER; 32];
            let mut request = httparse::Request::new(&mut fields);
            let Ok(httparse::Status::Complete(len)) = request.parse(&read) else {
                break;
            };
            let (head, body) = respond(&request);
            replies.push(IoSlice::new(head));
            if !body.is_empty() {
                replies.push(IoSlice::new(body));
            }
            read.advance(len);
            full = replies.len() >= 64;
        }
        if write_all_vectored(&mut stream, &mut replies).await.is_err() {
            return;
        }
        // A head this long is not a request of the benchmarks.
        if read.len() > 64 << 10 {
            return;
        }
        if full {
            continue;
        }
        read.reserve(8192);
        match stream.read_buf(&mut read).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

async fn write_all_vectored(
    stream: &mut TcpStream,
    replies: &mut Vec<IoSlice<'static>>,
) -> io::Result<()> {
    let mut slices = &mut replies[..];
    while !slices.is_empty() {
        let n = stream.write_vectored(slices).await?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        IoSlice::advance_slices(&mut slices, n);
    }
    replies.clear();
    Ok(())
}
