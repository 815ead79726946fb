import Crypto
import CurlHTTP
import Foundation

/// Where a batch's webhook goes (docs/operations.md, "When the night is done"): an HTTPS
/// URL, or plain HTTP to a host the operator allowed. The URL is a credential (a Slack or Teams
/// incoming webhook carries its token in the path), so it is never logged nor stored: rows and
/// messages name a destination by its host and a hash of the URL (`name`).
///
/// A destination obeys the rule uploads do: public addresses only, judged on the address libcurl
/// connects to after DNS (`AddressRule.publicOnly`), unless its host is allowed
/// (`DISCERN_WEBHOOK_ALLOW_HOSTS`, or `*`): a receiver on this network, or behind a proxy.
public struct WebhookDestination: Sendable, Equatable {
    let url: String
    /// `host/` and the first 10 hex digits of the URL's SHA-256: stable across workers with the
    /// same setting, and telling two webhooks on one host apart.
    public let name: String
    let addressRule: AddressRule

    public init(_ text: String, allowedHosts: Set<String>) throws(ServiceError) {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            ["https", "http"].contains(scheme), let host = components.host?.lowercased(), !host.isEmpty
        else {
            throw ServiceError.misconfigured("a webhook URL must be an https:// URL (one was not: \(Self.shown(text)))")
        }
        let allowed = allowedHosts.contains(host) || allowedHosts.contains("*")
        guard scheme == "https" || allowed else {
            throw ServiceError.misconfigured(
                "webhooks go over https; the one to \(host) is plain http: allow that host with DISCERN_WEBHOOK_ALLOW_HOSTS=\(host) if it is a receiver on this network"
            )
        }
        url = text
        addressRule = allowed ? .any : .publicOnly
        let digest = SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
        name = "\(host)/\(digest.prefix(10))"
    }

    /// Destinations from a list separated by spaces, commas or line breaks (one setting may hold
    /// several), each checked; the same URL twice counts once.
    public static func list(_ text: String, allowedHosts: Set<String>) throws(ServiceError) -> [WebhookDestination] {
        var seen = Set<String>(), destinations: [WebhookDestination] = []
        for item in text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" }) {
            let destination = try WebhookDestination(String(item), allowedHosts: allowedHosts)
            if seen.insert(destination.name).inserted { destinations.append(destination) }
        }
        return destinations
    }

    /// A URL shown in a message: its scheme and host at most, never its path or query.
    private static func shown(_ text: String) -> String {
        guard let components = URLComponents(string: text), let host = components.host else { return "\(text.count) characters" }
        return "\(components.scheme ?? "?")://\(host)/…"
    }

    /// A message that may quote the URL (libcurl's errors do), with the URL replaced by the name.
    func hidingURL(_ message: String) -> String {
        message.replacingOccurrences(of: Redact.url(url), with: name).replacingOccurrences(of: url, with: name)
    }
}
