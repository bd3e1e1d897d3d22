//! How far behind a client on this machine is: of the bytes its connection sent, how
//! many it has not read yet. That is the connection's send queue (bytes not yet
//! acknowledged) plus the client socket's receive queue (acknowledged, not read), which
//! the kernel's socket diagnostics give for any TCP socket of this network namespace
//! (`NETLINK_SOCK_DIAG`: what `ss` shows as Send-Q and Recv-Q).
//!
//! A client on another machine, or in another network namespace (a container behind a
//! virtual link), has no socket here to ask about: [`Client::on_this_machine`] says
//! `None`.
//!
//! The request is written here, with rustix's netlink socket, rather than with the
//! netlink crates: one fixed 72-byte request and two numbers of its answer, against
//! four more dependencies of the library.

use std::cell::Cell;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::OwnedFd;

use rustix::net::netlink::{self, SocketAddrNetlink};
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};
use tokio::net::TcpStream;

/// A connection whose client is a socket of this network namespace, with the
/// diagnostics socket that asks about it (closed with it: no descriptor outlives the
/// response that asked).
#[derive(Debug)]
pub(super) struct Client {
    diag: OwnedFd,
    /// The sequence number of the last request on `diag`.
    sequence: Cell<u32>,
    /// The connection's socket, as the kernel finds it: its own address, then its peer's.
    ours: (SocketAddr, SocketAddr),
    /// The client's socket: the same two, the other way round.
    theirs: (SocketAddr, SocketAddr),
}

impl Client {
    /// `stream`'s client, when the kernel finds its socket in this network namespace.
    pub(super) fn on_this_machine(stream: &TcpStream) -> Option<Self> {
        let local = canonical(stream.local_addr().ok()?);
        let remote = canonical(stream.peer_addr().ok()?);
        let diag = rustix::net::socket_with(
            AddressFamily::NETLINK,
            SocketType::RAW,
            SocketFlags::CLOEXEC,
            Some(netlink::SOCK_DIAG),
        )
        .ok()?;
        let client = Client {
            diag,
            sequence: Cell::new(0),
            ours: (local, remote),
            theirs: (remote, local),
        };
        client.unread().ok().map(|_| client)
    }

    /// The bytes sent on the connection that the client has not read, at most. An
    /// error when the kernel does not answer; of kind `ConnectionReset` when it no
    /// longer has either socket (the client closed the connection, or reset it).
    ///
    /// The connection's queue is asked first: a byte leaves it only once the client's
    /// socket has it (acknowledged), so a byte that moves between the two questions is
    /// counted in the second answer, or was read. Nothing is missed, as long as nothing
    /// is written meanwhile; and without writes the number only falls.
    pub(super) fn unread(&self) -> io::Result<u64> {
        let (_, sending) = self.queues(self.ours)?;
        let (receiving, _) = self.queues(self.theirs)?;
        Ok(sending + receiving)
    }

    /// The receive and send queues of the TCP socket whose own address and peer's are
    /// `socket`, in this network namespace.
    fn queues(&self, (local, remote): (SocketAddr, SocketAddr)) -> io::Result<(u64, u64)> {
        let (family, source, destination) = match (local.ip(), remote.ip()) {
            (IpAddr::V4(source), IpAddr::V4(destination)) => {
                let widen = |octets: [u8; 4]| {
                    let mut wide = [0; 16];
                    wide[..4].copy_from_slice(&octets);
                    wide
                };
                (
                    AddressFamily::INET,
                    widen(source.octets()),
                    widen(destination.octets()),
                )
            }
            (IpAddr::V6(source), IpAddr::V6(destination)) => {
                (AddressFamily::INET6, source.octets(), destination.octets())
            }
            _ => return Err(io::Error::from(io::ErrorKind::InvalidInput)),
        };
        let sequence = self.sequence.get().wrapping_add(1);
        self.sequence.set(sequence);
        let mut request = [0u8; REQUEST_LEN];
        // struct nlmsghdr: length, type, flags, sequence number, port (0: the kernel).
        request[0..4].copy_from_slice(&(REQUEST_LEN as u32).to_ne_bytes());
        request[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        request[6..8].copy_from_slice(&NLM_F_REQUEST.to_ne_bytes());
        request[8..12].copy_from_slice(&sequence.to_ne_bytes());
        // struct inet_diag_req_v2: family, protocol (TCP), no extensions, any state.
        request[16] = family.as_raw() as u8;
        request[17] = 6;
        request[20..24].copy_from_slice(&u32::MAX.to_ne_bytes());
        // struct inet_diag_sockid: the ports and addresses in network order, any
        // interface, no cookie (`INET_DIAG_NOCOOKIE`).
        request[24..26].copy_from_slice(&local.port().to_be_bytes());
        request[26..28].copy_from_slice(&remote.port().to_be_bytes());
        request[28..44].copy_from_slice(&source);
        request[44..60].copy_from_slice(&destination);
        request[64..72].fill(0xff);
        let kernel = SocketAddrNetlink::new(0, 0);
        let sent = rustix::net::sendto(&self.diag, &request, SendFlags::empty(), &kernel)?;
        if sent != REQUEST_LEN {
            return Err(io::Error::from(io::ErrorKind::WriteZero));
        }
        // The kernel answers within the call above; an answer to an earlier request
        // (there should be none) is skipped.
        let mut answer = [0u8; 1024];
        loop {
            let (len, _) = rustix::net::recv(&self.diag, &mut answer, RecvFlags::DONTWAIT)?;
            let answer = &answer[..len];
            let field = |at: usize| -> io::Result<u32> {
                answer
                    .get(at..at + 4)
                    .and_then(|field| field.try_into().ok())
                    .map(u32::from_ne_bytes)
                    .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidData))
            };
            if field(8)? != sequence {
                continue;
            }
            let kind = answer
                .get(4..6)
                .and_then(|kind| kind.try_into().ok())
                .map(u16::from_ne_bytes);
            if kind == Some(SOCK_DIAG_BY_FAMILY) {
                return Ok((u64::from(field(RQUEUE_AT)?), u64::from(field(WQUEUE_AT)?)));
            }
            // Anything else is an error answer (`NLMSG_ERROR`, a negative errno after
            // the header): `ENOENT`, the socket is not in the kernel's tables.
            return Err(match (field(16)? as i32).wrapping_neg() {
                ENOENT => io::Error::new(io::ErrorKind::ConnectionReset, "the client is gone"),
                errno => io::Error::from_raw_os_error(errno),
            });
        }
    }
}

/// An IPv4 address mapped into IPv6 (a `[::]` listener's IPv4 clients) as the IPv4
/// address it is: the client's socket is an IPv4 one.
fn canonical(addr: SocketAddr) -> SocketAddr {
    SocketAddr::new(addr.ip().to_canonical(), addr.port())
}

/// `NETLINK_SOCK_DIAG`'s message type for a socket lookup (`SOCK_DIAG_BY_FAMILY`).
const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// The errno of a lookup that finds no socket.
const ENOENT: i32 = 2;
/// `NLM_F_REQUEST`.
const NLM_F_REQUEST: u16 = 1;
/// The bytes of a request: `struct nlmsghdr` (16) and `struct inet_diag_req_v2` (56).
const REQUEST_LEN: usize = 72;
/// Where an answer's `struct inet_diag_msg` has `idiag_rqueue` and `idiag_wqueue`,
/// after its `struct nlmsghdr`.
const RQUEUE_AT: usize = 16 + 56;
const WQUEUE_AT: usize = 16 + 60;

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio::net::{TcpListener, TcpStream};

    use super::Client;

    /// What the kernel says a loopback client has not read follows what was written
    /// and read: all of it while the client reads nothing, none once it read all.
    #[tokio::test]
    async fn a_loopback_client_is_behind_by_what_it_has_not_read() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        let ours = Client::on_this_machine(&server).expect("a loopback client is found");
        assert_eq!(ours.unread().unwrap(), 0);

        let sent = vec![7u8; 100_000];
        server.write_all(&sent).await.unwrap();
        // Acknowledged or not, the bytes are in one of the two queues until read.
        let mut behind = ours.unread().unwrap();
        for _ in 0..100 {
            if behind == sent.len() as u64 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            behind = ours.unread().unwrap();
        }
        assert_eq!(behind, sent.len() as u64);

        let mut read = vec![0u8; 40_000];
        client.read_exact(&mut read).await.unwrap();
        assert_eq!(ours.unread().unwrap(), 60_000);
        let mut rest = vec![0u8; 60_000];
        client.read_exact(&mut rest).await.unwrap();
        assert_eq!(ours.unread().unwrap(), 0);

        // A client that closes with bytes unread resets the connection: its socket
        // leaves the kernel's tables at once, and the answer says so.
        server.write_all(&sent).await.unwrap();
        client.readable().await.unwrap();
        drop(client);
        let gone = ours.unread().expect_err("a closed client is not found");
        assert_eq!(gone.kind(), std::io::ErrorKind::ConnectionReset, "{gone}");
    }

    /// A `[::]` listener's IPv4 clients are found too (their addresses arrive mapped
    /// into IPv6), and IPv6 ones.
    #[tokio::test]
    async fn clients_of_a_dual_stack_listener_are_found() {
        let Ok(listener) = TcpListener::bind("[::]:0").await else {
            return; // No IPv6 on this machine.
        };
        let port = listener.local_addr().unwrap().port();
        for client in ["127.0.0.1", "[::1]"] {
            let Ok(_client) = TcpStream::connect(format!("{client}:{port}")).await else {
                continue;
            };
            let (server, _) = listener.accept().await.unwrap();
            let ours = Client::on_this_machine(&server);
            let behind = ours.map(|ours| ours.unread().unwrap());
            assert_eq!(behind, Some(0), "{client}");
        }
    }
}
