import Foundation

extension RemoteService {
    /// What a record of this service's settings may keep (a trial's candidate, shown to anyone
    /// who reads the trial): each of its variables set in `variables`, a URL without its
    /// credentials, query or fragment, a key, secret, token or password only as "(set)", any
    /// other value as written (200 characters at most).
    public func recordedSettings(_ variables: [String: String]) -> [String: String] {
        var recorded: [String: String] = [:]
        for name in [urlVariable] + self.variables {
            guard let value = variables[name], !value.isEmpty else { continue }
            if ["KEY", "SECRET", "TOKEN", "PASSWORD"].contains(where: name.uppercased().contains) {
                recorded[name] = "(set)"
            } else if var url = URLComponents(string: value), url.host != nil {
                (url.user, url.password, url.query, url.fragment) = (nil, nil, nil, nil)
                recorded[name] = url.string ?? "(set)"
            } else {
                recorded[name] = String(value.prefix(200))
            }
        }
        return recorded
    }
}
