//! Which IP addresses a webhook may be sent to when private destinations are not allowed: the
//! public ones. An address is refused when it falls in a range of the IANA IPv4 or IPv6
//! Special-Purpose Address Registry (or is multicast, or IPv6 outside global unicast), and an
//! IPv6 address that embeds an IPv4 address (mapped, compatible, translated, NAT64, 6to4,
//! Teredo) is judged by the IPv4 address it embeds, since that is where the packets end up.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether a request may go to `ip` when private destinations are not allowed.
#[must_use]
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Embedded::V4(v4) => is_public_v4(v4),
            Embedded::Unreadable => false,
            Embedded::None => is_public_v6(v6),
        },
    }
}

/// The IANA IPv4 Special-Purpose Address Registry (RFC 6890 and its updates), every entry,
/// with multicast (224.0.0.0/4, its own registry) added. The few entries marked globally
/// reachable (AS112, AMT, the PCP and TURN anycast addresses inside 192.0.0.0/24) are
/// infrastructure no webhook receiver lives on, so they are refused too.
const SPECIAL_V4: [(Ipv4Addr, u8); 20] = [
    (Ipv4Addr::new(0, 0, 0, 0), 8),          // "this network"
    (Ipv4Addr::new(10, 0, 0, 0), 8),         // private
    (Ipv4Addr::new(100, 64, 0, 0), 10),      // shared address space (CGNAT)
    (Ipv4Addr::new(127, 0, 0, 0), 8),        // loopback
    (Ipv4Addr::new(169, 254, 0, 0), 16),     // link-local
    (Ipv4Addr::new(172, 16, 0, 0), 12),      // private
    (Ipv4Addr::new(192, 0, 0, 0), 24),       // IETF protocol assignments
    (Ipv4Addr::new(192, 0, 2, 0), 24),       // documentation (TEST-NET-1)
    (Ipv4Addr::new(192, 31, 196, 0), 24),    // AS112-v4
    (Ipv4Addr::new(192, 52, 193, 0), 24),    // AMT
    (Ipv4Addr::new(192, 88, 99, 0), 24),     // deprecated 6to4 relay anycast
    (Ipv4Addr::new(192, 168, 0, 0), 16),     // private
    (Ipv4Addr::new(192, 175, 48, 0), 24),    // direct delegation AS112 service
    (Ipv4Addr::new(198, 18, 0, 0), 15),      // benchmarking
    (Ipv4Addr::new(198, 51, 100, 0), 24),    // documentation (TEST-NET-2)
    (Ipv4Addr::new(203, 0, 113, 0), 24),     // documentation (TEST-NET-3)
    (Ipv4Addr::new(224, 0, 0, 0), 4),        // multicast
    (Ipv4Addr::new(240, 0, 0, 0), 4),        // reserved
    (Ipv4Addr::new(255, 255, 255, 255), 32), // limited broadcast (inside 240/4; named for clarity)
    (Ipv4Addr::new(0, 0, 0, 0), 32),         // unspecified (inside 0/8; named for clarity)
];

/// The IANA IPv6 Special-Purpose Address Registry's entries inside global unicast 2000::/3
/// (everything outside it is refused anyway, see [`is_public_v6`]) that embed no IPv4
/// address. 2001::/32 (Teredo) and 2002::/16 (6to4) are judged by what they embed before this
/// table is read. As for IPv4, the entries marked globally reachable (AMT, AS112, ORCHIDv2,
/// drone remote ID, inside 2001::/23) are refused as well.
const SPECIAL_V6: [(Ipv6Addr, u8); 4] = [
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23), // IETF protocol assignments
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
    (Ipv6Addr::new(0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0), 48), // direct delegation AS112 service
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20), // documentation (RFC 9637)
];

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let bits = u32::from(ip);
    !SPECIAL_V4.iter().any(|&(net, len)| {
        let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
        bits & mask == u32::from(net) & mask
    })
}

/// An IPv6 address that embeds no IPv4 address: public when it is global unicast (2000::/3,
/// all IANA has allocated for it; the rest of the space, unique-local fc00::/7, link-local
/// fe80::/10, multicast ff00::/8, loopback, unspecified, discard-only 100::/64, the dummy prefix
/// 100:0:0:1::/64 and segment-routing 5f00::/16 among it, is reserved or special) and in no
/// entry of [`SPECIAL_V6`].
fn is_public_v6(ip: Ipv6Addr) -> bool {
    let bits = u128::from(ip);
    let global_unicast = bits >> 125 == 0b001;
    global_unicast
        && !SPECIAL_V6.iter().any(|&(net, len)| {
            let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
            bits & mask == u128::from(net) & mask
        })
}

/// What an IPv6 address says about an IPv4 address inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Embedded {
    /// A form that carries this IPv4 address: the packets go there.
    V4(Ipv4Addr),
    /// A form that carries one, but where cannot be known from the address alone.
    Unreadable,
    /// Not a form that carries one.
    None,
}

/// The IPv4 address embedded in `ip`, by the rule of its form:
/// - IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96` (RFC 2765),
///   IPv4-compatible `::/96` (deprecated; `::` and `::1` fall in it and embed 0.0.0.0 and
///   0.0.0.1, both refused) and the well-known NAT64 prefix `64:ff9b::/96`: the last 32 bits;
/// - local-use NAT64 `64:ff9b:1::/48` (RFC 8215): the last 32 bits when the address is in
///   `64:ff9b:1::/96`; the operator may use a longer prefix inside the /48 (RFC 6052 puts the
///   IPv4 address elsewhere then), so any other address in it is [`Embedded::Unreadable`];
/// - 6to4 `2002::/16`: bits 16 to 48;
/// - Teredo `2001::/32`: the client's address, the last 32 bits inverted.
fn embedded_v4(ip: Ipv6Addr) -> Embedded {
    let s = ip.segments();
    let last32 = Ipv4Addr::from(u32::from(s[6]) << 16 | u32::from(s[7]));
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _]
        | [0, 0, 0, 0, 0xffff, 0, _, _]
        | [0, 0, 0, 0, 0, 0, _, _]
        | [0x64, 0xff9b, 0, 0, 0, 0, _, _]
        | [0x64, 0xff9b, 1, 0, 0, 0, _, _] => Embedded::V4(last32),
        [0x64, 0xff9b, 1, ..] => Embedded::Unreadable,
        [0x2002, high, low, ..] => {
            Embedded::V4(Ipv4Addr::from(u32::from(high) << 16 | u32::from(low)))
        }
        [0x2001, 0, ..] => Embedded::V4(Ipv4Addr::from(!u32::from(last32))),
        _ => Embedded::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6(text: &str) -> IpAddr {
        IpAddr::V6(text.parse().unwrap())
    }

    fn v4(text: &str) -> IpAddr {
        IpAddr::V4(text.parse().unwrap())
    }

    /// 93.184.215.14, an ordinary public address, is 5db8:d70e in hex.
    const PUBLIC_V4: &str = "93.184.215.14";

    #[test]
    fn every_ipv4_special_purpose_range_is_refused_from_its_first_to_its_last_address() {
        for (first, last) in [
            ("0.0.0.0", "0.255.255.255"),
            ("10.0.0.0", "10.255.255.255"),
            ("100.64.0.0", "100.127.255.255"),
            ("127.0.0.0", "127.255.255.255"),
            ("169.254.0.0", "169.254.255.255"),
            ("172.16.0.0", "172.31.255.255"),
            ("192.0.0.0", "192.0.0.255"),
            ("192.0.2.0", "192.0.2.255"),
            ("192.31.196.0", "192.31.196.255"),
            ("192.52.193.0", "192.52.193.255"),
            ("192.88.99.0", "192.88.99.255"),
            ("192.168.0.0", "192.168.255.255"),
            ("192.175.48.0", "192.175.48.255"),
            ("198.18.0.0", "198.19.255.255"),
            ("198.51.100.0", "198.51.100.255"),
            ("203.0.113.0", "203.0.113.255"),
            ("224.0.0.0", "239.255.255.255"),
            ("240.0.0.0", "255.255.255.254"),
            ("255.255.255.255", "255.255.255.255"),
        ] {
            assert!(!is_public(v4(first)), "{first}");
            assert!(!is_public(v4(last)), "{last}");
        }
    }

    #[test]
    fn the_neighbours_of_the_ipv4_ranges_are_public() {
        for public in [
            PUBLIC_V4,
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "172.15.255.255",
            "172.32.0.0",
            "191.255.255.255",
            "192.0.1.0",
            "192.0.3.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "198.51.99.255",
            "198.51.101.0",
            "203.0.112.255",
            "203.0.114.0",
            "223.255.255.255",
        ] {
            assert!(is_public(v4(public)), "{public}");
        }
    }

    #[test]
    fn ipv6_forms_that_embed_ipv4_are_judged_by_the_embedded_address() {
        for (refused, why) in [
            ("::127.0.0.1", "IPv4-compatible loopback"),
            ("::10.0.0.1", "IPv4-compatible private"),
            ("::ffff:7f00:1", "IPv4-mapped loopback"),
            ("::ffff:192.168.0.1", "IPv4-mapped private"),
            ("::ffff:0:7f00:1", "IPv4-translated loopback"),
            ("64:ff9b::a00:1", "NAT64 of 10.0.0.1"),
            ("64:ff9b::7f00:1", "NAT64 of 127.0.0.1"),
            ("64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254"),
            ("64:ff9b:1::a00:1", "local-use NAT64 of 10.0.0.1"),
            ("2002:7f00:1::", "6to4 of 127.0.0.1"),
            ("2002:a00:1::1", "6to4 of 10.0.0.1"),
            ("2002:c0a8:101:1::5", "6to4 of 192.168.1.1"),
            // Teredo: server 65.54.227.120, client 127.0.0.1 (0x7f000001 inverted is
            // 0x80fffffe).
            (
                "2001:0:4136:e378:8000:63bf:80ff:fffe",
                "Teredo client 127.0.0.1",
            ),
            (
                "2001:0:4136:e378:8000:63bf:f5ff:fffe",
                "Teredo client 10.0.0.1",
            ),
            ("::", "unspecified"),
            ("::1", "loopback"),
        ] {
            assert!(!is_public(v6(refused)), "{refused}: {why}");
        }
        for public in [
            "::93.184.215.14",
            "::ffff:5db8:d70e",
            "::ffff:0:5db8:d70e",
            "64:ff9b::5db8:d70e",
            "64:ff9b:1::5db8:d70e",
            "2002:5db8:d70e::1",
            "2002:5db8:d70e:1:2:3:4:5",
            // Teredo client 93.184.215.14 (0x5db8d70e inverted is 0xa24728f1).
            "2001:0:4136:e378:8000:63bf:a247:28f1",
        ] {
            assert!(is_public(v6(public)), "{public} embeds {PUBLIC_V4}");
        }
    }

    #[test]
    fn a_local_use_nat64_address_outside_its_96_bit_layout_is_refused() {
        // With a /64 prefix (RFC 6052), 10.0.0.1 sits in bits 72-103 and the last bits are
        // the suffix: reading the last 32 bits would see a public address that is not there.
        assert!(!is_public(v6("64:ff9b:1:0:a:0:1:5db8")));
        assert!(!is_public(v6("64:ff9b:1:1::5db8:d70e")));
    }

    #[test]
    fn ipv6_special_purpose_and_non_global_ranges_are_refused() {
        for refused in [
            "100::1",
            "100::ffff:ffff:ffff:ffff",
            "100:0:0:1::1",
            "2001:1::1",
            "2001:3::1",
            "2001:4:112::1",
            "2001:10::1",
            "2001:20::1",
            "2001:1ff:ffff::1",
            "2001:db8::1",
            "2001:db8:ffff::1",
            "2620:4f:8000::1",
            "3fff::1",
            "3fff:fff::1",
            "5f00::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            "1::1",
            "4000::1",
            "0:1::1",
        ] {
            assert!(!is_public(v6(refused)), "{refused}");
        }
        for public in [
            "2606:4700::6810:85e5",
            "2a00:1450:4001:80b::200e",
            "2001:200::1",
            "2001:db9::1",
            "2620:4f:8001::1",
            "3ffe::1",
            "3fff:1000::1",
        ] {
            assert!(is_public(v6(public)), "{public}");
        }
    }
}
