//! The six requests the load benchmarks send to the site of [`crate::site`], and the
//! check each server must pass on them, over HTTP, before it is measured: a page and an
//! icon without `Accept-Encoding`, the script with `Accept-Encoding: br, gzip` (15 KB of
//! br), the stylesheet revalidated with `If-None-Match` (304), and, with `Accept-Encoding:
//! br, gzip`, the two large bodies: a small app's bundle (27 KB of br) and the
//! stylesheet (43 KB of br).

use std::net::SocketAddr;

use crate::client;

/// What a URL is requested with, and what must come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// No `Accept-Encoding`: 200, identity, the file's bytes.
    Plain,
    /// `Accept-Encoding: br, gzip`: 200, br, decoding to the file's bytes.
    Brotli,
    /// `Accept-Encoding: br, gzip` and `If-None-Match` with the ETag the server sent for
    /// that request: 304.
    NotModified,
}

/// One request shape.
#[derive(Debug)]
pub struct Case {
    /// The name on the command line (`--cases`), as bench-respond spells it.
    pub name: &'static str,
    /// The URL path.
    pub path: &'static str,
    /// The file under [`crate::site::SITE_DIR`].
    pub file: &'static str,
    /// How the tables name it, in full.
    pub title: &'static str,
    /// How the tables name it, short.
    pub short: &'static str,
    /// What it is requested with and what must come back.
    pub check: Check,
}

/// The cases, in the order the tables list them.
pub const CASES: [Case; 6] = [
    Case {
        name: "index",
        path: "/index.html",
        file: "index.html",
        title: "/index.html, no Accept-Encoding",
        short: "/index.html",
        check: Check::Plain,
    },
    Case {
        name: "br",
        path: "/js/app.js",
        file: "js/app.js",
        title: "/js/app.js, Accept-Encoding: br, gzip",
        short: "/js/app.js br",
        check: Check::Brotli,
    },
    Case {
        name: "favicon",
        path: "/favicon.ico",
        file: "favicon.ico",
        title: "/favicon.ico, no Accept-Encoding",
        short: "/favicon.ico",
        check: Check::Plain,
    },
    Case {
        name: "304",
        path: "/css/app.css",
        file: "css/app.css",
        title: "/css/app.css, Accept-Encoding: br, gzip + If-None-Match (304)",
        short: "/css/app.css 304",
        check: Check::NotModified,
    },
    Case {
        name: "br-large",
        path: "/css/app.css",
        file: "css/app.css",
        title: "/css/app.css, Accept-Encoding: br, gzip (43 KB of br)",
        short: "/css/app.css br",
        check: Check::Brotli,
    },
    Case {
        name: "bundle",
        path: "/js/bundle.js",
        file: "js/bundle.js",
        title: "/js/bundle.js, Accept-Encoding: br, gzip (27 KB of br)",
        short: "/js/bundle.js br",
        check: Check::Brotli,
    },
];

/// Whether `case` is one of the large bodies, which `bench-frameworks` leaves out
/// unless asked for.
pub fn is_large(case: &Case) -> bool {
    matches!(case.name, "br-large" | "bundle")
}

/// What a server answered to a case when checked, and how it is then measured.
#[derive(Debug, Clone)]
pub struct Probe {
    /// Request headers, for wrk too.
    pub headers: Vec<(String, String)>,
    /// Status, coding and body size, for the tables.
    pub summary: String,
    /// Bytes of one whole response on the connection.
    pub wire_len: usize,
    /// How this server's answer differs from the one asked for (no br, no ETag).
    pub note: Option<String>,
    /// The response's body as sent, still in its `Content-Encoding` (none for a 304).
    pub body: Vec<u8>,
}

fn accept_encoding() -> (String, String) {
    ("Accept-Encoding".into(), "br, gzip".into())
}

/// Requests `case` from the server at `addr` as wrk will, and checks the answer
/// against `expected`, the file's bytes.
///
/// # Errors
/// What is wrong with the answer: the status, the coding, a body that is not the file
/// once decoded, no validator, no 304 to it.
pub fn check(addr: SocketAddr, case: &Case, expected: &[u8]) -> Result<Probe, String> {
    let status = |reply: &client::Reply, want: u16| {
        if reply.status == want {
            Ok(())
        } else {
            Err(format!("status {} instead of {want}", reply.status))
        }
    };
    let same_file = |body: &[u8]| {
        if body == expected {
            Ok(())
        } else {
            Err(format!(
                "the body ({} bytes once decoded) is not the file ({} bytes)",
                body.len(),
                expected.len()
            ))
        }
    };
    match case.check {
        Check::Plain => {
            let reply = client::get(addr, case.path, &[])?;
            status(&reply, 200)?;
            if let Some(coding) = reply.header("content-encoding") {
                return Err(format!(
                    "Content-Encoding {coding} to a request without br or gzip"
                ));
            }
            same_file(&reply.body)?;
            Ok(Probe {
                headers: Vec::new(),
                summary: format!("200 identity {} B", reply.body.len()),
                wire_len: reply.wire_len(),
                note: None,
                body: reply.body,
            })
        }
        Check::Brotli => {
            let headers = vec![accept_encoding()];
            let reply = client::get(addr, case.path, &headers)?;
            status(&reply, 200)?;
            same_file(&client::decode(&reply)?)?;
            let coding = reply.header("content-encoding").unwrap_or("identity");
            Ok(Probe {
                headers,
                summary: format!("200 {coding} {} B", reply.body.len()),
                wire_len: reply.wire_len(),
                note: (coding != "br").then(|| format!("sends {coding}: no br")),
                body: reply.body,
            })
        }
        Check::NotModified => {
            let mut headers = vec![accept_encoding()];
            let first = client::get(addr, case.path, &headers)?;
            status(&first, 200)?;
            same_file(&client::decode(&first)?)?;
            let coding = first.header("content-encoding").unwrap_or("identity");
            let (name, value, note) = if let Some(etag) = first.header("etag") {
                ("If-None-Match", etag, None)
            } else if let Some(date) = first.header("last-modified") {
                (
                    "If-Modified-Since",
                    date,
                    Some("no ETag: If-Modified-Since".to_owned()),
                )
            } else {
                return Err("neither ETag nor Last-Modified on the 200".into());
            };
            headers.push((name.to_owned(), value.to_owned()));
            let second = client::get(addr, case.path, &headers)?;
            status(&second, 304).map_err(|e| format!("{e} for {name}: {value}"))?;
            Ok(Probe {
                summary: format!("304 to {name}: {value} ({coding} 200)"),
                headers,
                wire_len: second.wire_len(),
                note,
                body: second.body,
            })
        }
    }
}
