//! Addresses a web fetch must not reach on its own: loopback, private ranges, link-local,
//! shared (carrier-grade NAT) and unspecified ones, for IPv4 and IPv6 (IPv4-mapped included).
//! A model told by a page to fetch `http://127.0.0.1:8080/admin` would otherwise reach
//! services that trust the machine they run on.
//!
//! The rule: a host is judged by every address it resolves to, and the connection then goes
//! to exactly those addresses (no second lookup an attacker's DNS could answer differently).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Hosts an allow rule names (`WebFetch(domain:localhost)`): the only ones a fetch may reach
/// at a private address. The session's permission rules implement it.
pub trait PrivateHostAllowance: Send + Sync + std::fmt::Debug {
    /// True when `host` (lowercased, no port) may be fetched at a private address.
    fn allows(&self, host: &str) -> bool;
}

/// True for an address that is not on the public internet.
pub fn is_private_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_private_v4(v4),
            None => is_private_v6(v6),
        },
    }
}

/// True for a host that is private by its name or its literal address, before any lookup:
/// an IP literal in a private range, `localhost` or a name under `.localhost`.
pub fn is_private_host(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    match bare.parse::<IpAddr>() {
        Ok(ip) => is_private_address(ip),
        Err(_) => {
            let lower = bare.to_ascii_lowercase();
            lower == "localhost" || lower.ends_with(".localhost")
        }
    }
}

fn is_private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        // 100.64.0.0/10: shared address space (carrier-grade NAT), never public.
        || (a == 100 && (64..128).contains(&b))
        // 0.0.0.0/8 reaches this host on Linux.
        || a == 0
}

fn is_private_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    ip.is_loopback()
        || ip.is_unspecified()
        // fc00::/7: unique local.
        || (first & 0xfe00) == 0xfc00
        // fe80::/10: link-local.
        || (first & 0xffc0) == 0xfe80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_private_and_link_local_addresses_are_private() {
        for private in [
            "127.0.0.1",
            "127.9.9.9",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            assert!(
                is_private_address(private.parse().unwrap()),
                "{private} should be private"
            );
        }
        for public in [
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "8.8.8.8",
            "2606:4700::1111",
        ] {
            assert!(
                !is_private_address(public.parse().unwrap()),
                "{public} should be public"
            );
        }
    }

    #[test]
    fn private_hosts_are_known_by_literal_or_by_localhost_name() {
        assert!(is_private_host("127.0.0.1"));
        assert!(is_private_host("[::1]"));
        assert!(is_private_host("::1"));
        assert!(is_private_host("LocalHost"));
        assert!(is_private_host("app.localhost."));
        assert!(!is_private_host("example.com"));
        assert!(!is_private_host("8.8.8.8"));
    }
}
