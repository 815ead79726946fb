import Foundation

/// Tolerant reading of service JSON: a field that is missing or of the wrong type reads as nil
/// instead of failing the whole answer.
struct JSONObject {
    let fields: [String: Any]

    init?(_ value: Any?) {
        guard let fields = value as? [String: Any] else { return nil }
        self.fields = fields
    }

    static func parse(_ data: Data) -> JSONObject? {
        JSONObject(try? JSONSerialization.jsonObject(with: data))
    }

    func object(_ key: String) -> JSONObject? {
        if let nested = JSONObject(fields[key]) { return nested }
        // Some gateways double-encode: a JSON object inside a string.
        if let text = fields[key] as? String, let data = text.data(using: .utf8) { return JSONObject.parse(data) }
        return nil
    }

    func string(_ key: String) -> String? {
        switch fields[key] {
        case let text as String: return text.isEmpty ? nil : text
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }

    func double(_ key: String) -> Double? {
        switch fields[key] {
        case let number as NSNumber: return number.doubleValue
        case let text as String: return Double(text)
        default: return nil
        }
    }

    func bool(_ key: String) -> Bool? { fields[key] as? Bool }

    func strings(_ key: String) -> [String] {
        (fields[key] as? [Any])?.compactMap { $0 as? String } ?? []
    }

    func array(_ key: String) -> [JSONObject] {
        (fields[key] as? [Any])?.compactMap { JSONObject($0) } ?? []
    }
}
