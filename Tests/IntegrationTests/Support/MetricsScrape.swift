import Foundation
import Testing

/// Reads a worker's Prometheus exposition (`discern work --metrics-port 0 --log-format json`).
extension WorkerProcess {
    /// The sum of `name`'s samples whose labels include `matching`; nil when the endpoint did not
    /// answer. A series not exported yet counts 0.
    func metric(_ name: String, _ matching: [String: String] = [:]) async -> Double? {
        guard let port = await announcedMetricsPort() else { return nil }
        let answer = await RawHTTP.get(port: port, path: "/metrics")
        guard answer.status == 200 else { return nil }
        return PrometheusText.sum(answer.body, name, matching)
    }
}

enum PrometheusText {
    /// `name{a="x",b="y"} 3` lines: the sum of the values of those whose labels include `matching`.
    static func sum(_ exposition: String, _ name: String, _ matching: [String: String]) -> Double {
        var total = 0.0
        for line in exposition.split(separator: "\n") where line.hasPrefix(name) && !line.hasPrefix("#") {
            let rest = line.dropFirst(name.count)
            guard rest.first == "{" || rest.first == " " else { continue }
            var labels: [String: String] = [:]
            if rest.first == "{", let close = rest.firstIndex(of: "}") {
                for pair in rest[rest.index(after: rest.startIndex)..<close].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { labels[String(parts[0])] = String(parts[1]).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                }
            }
            guard matching.allSatisfy({ labels[$0.key] == $0.value }),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            total += value
        }
        return total
    }
}
