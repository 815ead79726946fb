import Foundation

extension ServiceError {
    /// A setting that is set but wrong: one line naming the variable and what it takes. It
    /// stops a worker at start instead of failing job by job.
    static func misconfigured(_ message: String) -> ServiceError { ServiceError(.misconfigured, message) }
}

/// Strict reading of configuration values: a value that is set but wrong is an error with one
/// line naming the variable and what it takes, never silently ignored or wrapped around.
public enum ConfigurationValue {
    /// A finite number within `range`.
    public static func number(_ text: String, name: String, in range: ClosedRange<Double>) throws(ServiceError) -> Double {
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite, range.contains(number) else {
            throw ServiceError.misconfigured(
                "\(name)=\(shown(text)) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
        return number
    }

    /// A whole number within `range`.
    public static func integer(_ text: String, name: String, in range: ClosedRange<Int>) throws(ServiceError) -> Int {
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
            throw ServiceError.misconfigured("\(name)=\(shown(text)) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    public static func flag(_ text: String, name: String) throws(ServiceError) -> Bool {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ServiceError.misconfigured("\(name)=\(shown(text)) must be true or false")
        }
    }

    /// An http(s) URL with a host, without a query, fragment or credentials: a service's base.
    public static func serviceURL(_ text: String, name: String) throws(ServiceError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.query == nil, components.fragment == nil, components.user == nil, components.password == nil
        else {
            throw ServiceError.misconfigured(
                "\(name)=\(shown(text)) must be an http:// or https:// URL with a host and no query, e.g. https://api.example.com/prod")
        }
        return trimmed
    }

    /// The value as it may appear in a message: short, on one line.
    static func shown(_ text: String) -> String {
        let line = text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined()
        return line.count > 60 ? String(line.prefix(60)) + "…" : line
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
