//! What `serve` reads of its TLS certificate itself (feature `tls`): when it expires,
//! and which names it is for. A few lines of DER read by hand: rustls's parser (webpki)
//! exposes neither, and an X.509 crate for two fields would weigh more than the rest of
//! the feature. Both are about warnings and start-up errors; rustls has already taken
//! the certificate, or refuses it itself.

use std::net::IpAddr;
use std::time::{Duration, SystemTime};

/// When a certificate (DER) expires: its `notAfter`; `None` where the DER is not a
/// certificate's shape.
pub(super) fn not_after(certificate: &[u8]) -> Option<SystemTime> {
    let mut rest = after_version(certificate)?;
    // serialNumber; signature; issuer.
    for tag in [0x02, 0x30, 0x30] {
        rest = der(rest, tag)?.1;
    }
    let (validity, _) = der(rest, 0x30)?;
    let (_, _, after_not_before) = der_any(validity)?;
    let (tag, time, _) = der_any(after_not_before)?;
    let time = std::str::from_utf8(time).ok()?.strip_suffix('Z')?;
    let (year, rest) = match tag {
        // UTCTime: YYMMDDHHMMSSZ, 1950 to 2049 (RFC 5280 §4.1.2.5.1).
        0x17 => {
            let year: i64 = time.get(..2)?.parse().ok()?;
            (
                if year < 50 { 2000 + year } else { 1900 + year },
                time.get(2..)?,
            )
        }
        // GeneralizedTime: YYYYMMDDHHMMSSZ.
        0x18 => (time.get(..4)?.parse().ok()?, time.get(4..)?),
        _ => return None,
    };
    if rest.len() != 10 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let field = |at: usize| rest[at..at + 2].parse::<i64>().ok();
    let (month, day) = (field(0)?, field(2)?);
    let seconds =
        days_from_civil(year, month, day) * 86_400 + field(4)? * 3600 + field(6)? * 60 + field(8)?;
    let seconds = u64::try_from(seconds).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(seconds))
}

/// A name a certificate is for: an entry of its subjectAltName.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Name {
    /// A DNS name, lowercased; `*.example.com` for a wildcard.
    Dns(String),
    Ip(IpAddr),
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Name::Dns(name) => f.write_str(name),
            Name::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

/// The names a certificate (DER) is for: its subjectAltName's DNS names and IP
/// addresses (what clients check since RFC 6125; the subject's common name is not
/// read). Empty when it has none; `None` where the DER is not a certificate's shape.
pub(super) fn names(certificate: &[u8]) -> Option<Vec<Name>> {
    let mut rest = after_version(certificate)?;
    // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo.
    for tag in [0x02, 0x30, 0x30, 0x30, 0x30, 0x30] {
        rest = der(rest, tag)?.1;
    }
    // issuerUniqueID [1] and subjectUniqueID [2] if there, then extensions [3].
    let mut extensions = None;
    while let Some((tag, content, after)) = der_any(rest) {
        if tag == 0xa3 {
            extensions = Some(der(content, 0x30)?.0);
            break;
        }
        rest = after;
    }
    let Some(mut extensions) = extensions else {
        return Some(Vec::new());
    };
    while !extensions.is_empty() {
        let (extension, next) = der(extensions, 0x30)?;
        extensions = next;
        let (id, mut fields) = der(extension, 0x06)?;
        // subjectAltName, 2.5.29.17.
        if id != [0x55, 0x1d, 0x11] {
            continue;
        }
        if fields.first() == Some(&0x01) {
            fields = der(fields, 0x01)?.1;
        }
        let (value, _) = der(fields, 0x04)?;
        let (mut general_names, _) = der(value, 0x30)?;
        let mut names = Vec::new();
        while !general_names.is_empty() {
            let (tag, content, next) = der_any(general_names)?;
            general_names = next;
            match (tag, content.len()) {
                // dNSName [2] IA5String.
                (0x82, _) => names.push(Name::Dns(
                    std::str::from_utf8(content).ok()?.to_ascii_lowercase(),
                )),
                // iPAddress [7]: four or sixteen bytes.
                (0x87, 4) => names.push(Name::Ip(IpAddr::from(<[u8; 4]>::try_from(content).ok()?))),
                (0x87, 16) => {
                    names.push(Name::Ip(IpAddr::from(<[u8; 16]>::try_from(content).ok()?)));
                }
                _ => {}
            }
        }
        return Some(names);
    }
    Some(Vec::new())
}

/// Whether `host`, the name a client asked for (SNI: a DNS name, any case), is one of
/// `names`: the same name, or under a wildcard that stands for its first label alone
/// (`*.example.com` covers `www.example.com`, not `example.com` nor `a.b.example.com`;
/// RFC 6125 §6.4.3).
pub(super) fn covers(names: &[Name], host: &str) -> bool {
    // Compared without a copy: this runs at every handshake.
    let host = host.trim_end_matches('.');
    names.iter().any(|name| match name {
        Name::Dns(name) => match name.strip_prefix("*.") {
            Some(parent) => host.split_once('.').is_some_and(|(label, rest)| {
                !label.is_empty() && rest.eq_ignore_ascii_case(parent)
            }),
            None => name.eq_ignore_ascii_case(host),
        },
        Name::Ip(ip) => host.parse::<IpAddr>().is_ok_and(|host| host == *ip),
    })
}

/// A certificate's TBSCertificate, from the field after its version on.
fn after_version(certificate: &[u8]) -> Option<&[u8]> {
    let (certificate, _) = der(certificate, 0x30)?;
    let (tbs, _) = der(certificate, 0x30)?;
    // version [0] EXPLICIT, if there.
    match tbs.first() {
        Some(&0xa0) => Some(der(tbs, 0xa0)?.1),
        _ => Some(tbs),
    }
}

/// One DER element of `tag` at the start of `input`: its content, and what follows.
fn der(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (found, content, rest) = der_any(input)?;
    (found == tag).then_some((content, rest))
}

/// The DER element at the start of `input`: its tag, its content, and what follows.
fn der_any(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, mut rest) = rest.split_first()?;
    let len = if first < 0x80 {
        usize::from(first)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 {
            return None;
        }
        let (bytes, after) = rest.split_at_checked(count)?;
        rest = after;
        bytes
            .iter()
            .fold(0usize, |len, &byte| (len << 8) | usize::from(byte))
    };
    let (content, rest) = rest.split_at_checked(len)?;
    Some((tag, content, rest))
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard
/// Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_covered_exactly_or_by_a_wildcard_for_its_first_label() {
        let names = [
            Name::Dns("example.com".to_owned()),
            Name::Dns("*.apps.example.com".to_owned()),
            Name::Ip(IpAddr::from([127, 0, 0, 1])),
        ];
        for host in [
            "example.com",
            "EXAMPLE.com",
            "example.com.",
            "a.apps.example.com",
            "127.0.0.1",
        ] {
            assert!(covers(&names, host), "{host}");
        }
        for host in [
            "www.example.com",
            "apps.example.com",
            "a.b.apps.example.com",
            ".apps.example.com",
            "127.0.0.2",
            "example.org",
        ] {
            assert!(!covers(&names, host), "{host}");
        }
    }

    #[test]
    fn dates_count_days_from_1970() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2026, 12, 7), 20_794);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
    }

    /// A certificate's DER, cut down to the fields before the validity and the
    /// validity itself (the parser reads no further).
    fn certificate(not_after: &[u8]) -> Vec<u8> {
        let element = |tag: u8, content: &[u8]| {
            let mut out = vec![tag];
            if content.len() < 0x80 {
                out.push(content.len() as u8);
            } else {
                out.extend([0x82, (content.len() >> 8) as u8, content.len() as u8]);
            }
            out.extend_from_slice(content);
            out
        };
        let validity = [element(0x17, b"261206000000Z"), not_after.to_vec()].concat();
        let tbs = [
            element(0xa0, &element(0x02, &[2])),
            element(0x02, &[1, 2, 3]),
            element(0x30, &[0; 10]),
            element(0x30, &[0; 200]),
            element(0x30, &validity),
            element(0x30, &[0; 20]),
        ]
        .concat();
        element(0x30, &element(0x30, &tbs))
    }

    #[test]
    fn the_end_of_validity_is_read_in_either_time_form() {
        let at = |seconds: u64| Some(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds));
        // 2026-12-08 01:02:03 UTC.
        let expected = at(20_795 * 86_400 + 3723);
        let utc = [&[0x17, 13][..], b"261208010203Z"].concat();
        assert_eq!(not_after(&certificate(&utc)), expected);
        let generalized = [&[0x18, 15][..], b"20261208010203Z"].concat();
        assert_eq!(not_after(&certificate(&generalized)), expected);
        // 1999 as a UTCTime year, 99.
        let old = [&[0x17, 13][..], b"991231235959Z"].concat();
        assert_eq!(not_after(&certificate(&old)), at(946_684_799));
        // Not a time, or cut short: no date, no panic.
        assert_eq!(not_after(&certificate(&[0x17, 3, b'2', b'6', b'Z'])), None);
        let whole = certificate(&utc);
        for len in 0..whole.len() {
            let _ = not_after(&whole[..len]);
        }
    }
}
