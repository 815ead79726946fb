import AnalysisModel
import Foundation

/// Provenance as each service's client states it (docs/services.md, "Provenance"): the host
/// of the URL it was configured with, and what its answer and request say.
extension Provenance {
    init(serviceURL: String, model: String? = nil, modelVersion: String? = nil, details: [String: Any?]) {
        self.init(model: model, modelVersion: modelVersion, serviceHost: Self.host(of: serviceURL), detailsJSON: JSONBody.details(details))
    }

    /// `host` or `host:port` of a URL: never its user, path or query.
    static func host(of url: String) -> String? {
        guard let parts = URLComponents(string: url), let host = parts.host, !host.isEmpty else { return nil }
        return parts.port.map { "\(host):\($0)" } ?? host
    }
}
