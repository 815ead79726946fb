import Foundation

/// Tolerant, bounded reading of a JSON object from outside (a service's answer): a field that
/// is missing, of the wrong type, out of range or not finite reads as nil instead of failing
/// the whole answer or trapping, and no string read is longer than the caller allows. Not
/// QueueReads' `JSONValue`, which carries an answer already stored, whole and unchanged, to a
/// page.
struct UntrustedJSON {
    let fields: [String: Any]

    /// The longest text a field yields unless the caller asks for more: operator names, plates,
    /// categories are short; a 5 MB "category" is garbage and is cut.
    static let defaultMaxLength = 512

    init?(_ value: Any?) {
        guard let fields = value as? [String: Any] else { return nil }
        self.fields = fields
    }

    /// nil for anything that is not a JSON object. Foundation's parser refuses nesting deeper
    /// than it can handle (no stack overflow) and numbers a Double cannot hold.
    static func parse(_ data: Data) -> UntrustedJSON? {
        UntrustedJSON(try? JSONSerialization.jsonObject(with: data))
    }

    func object(_ key: String) -> UntrustedJSON? {
        if let nested = UntrustedJSON(fields[key]) { return nested }
        // Some gateways double-encode: a JSON object inside a string.
        if let text = fields[key] as? String, text.first == "{", let data = text.data(using: .utf8) { return UntrustedJSON.parse(data) }
        return nil
    }

    func string(_ key: String, maxLength: Int = defaultMaxLength) -> String? {
        switch fields[key] {
        case let text as String: return text.isEmpty ? nil : Self.bounded(text, maxLength)
        case let number as NSNumber where !Self.isBoolean(number): return number.stringValue
        default: return nil
        }
    }

    /// A finite number; numbers in strings ("0.93") are read too, "inf" and "nan" are not.
    func double(_ key: String) -> Double? { Self.number(fields[key]) }

    /// A whole number within Int's range: `1e300`, `"inf"`, `2.5` and `true` are not.
    func int(_ key: String) -> Int? {
        guard let value = double(key), value == value.rounded(), let exact = Int(exactly: value) else { return nil }
        return exact
    }

    /// A number between 0 and 1, as confidences and similarities must be.
    func fraction(_ key: String) -> Double? {
        double(key).flatMap { (0...1).contains($0) ? $0 : nil }
    }

    func bool(_ key: String) -> Bool? { fields[key] as? Bool }

    func strings(_ key: String, maxLength: Int = defaultMaxLength, maxCount: Int = 100) -> [String] {
        Array(
            ((fields[key] as? [Any]) ?? []).lazy.compactMap { $0 as? String }.filter { !$0.isEmpty }
                .prefix(maxCount).map { Self.bounded($0, maxLength) })
    }

    func array(_ key: String, maxCount: Int = 100) -> [UntrustedJSON] {
        Array(((fields[key] as? [Any]) ?? []).lazy.compactMap { UntrustedJSON($0) }.prefix(maxCount))
    }

    static func number(_ value: Any?) -> Double? {
        let number: Double? =
            switch value {
            case let number as NSNumber where !isBoolean(number): number.doubleValue
            case let text as String where text.count <= 64: Double(text.trimmingCharacters(in: .whitespaces))
            default: nil
            }
        return number.flatMap { $0.isFinite ? $0 : nil }
    }

    /// JSON `true` arrives as an NSNumber too; it is not a number.
    static func isBoolean(_ number: NSNumber) -> Bool {
        String(describing: type(of: number)).contains("Boolean")
    }

    /// Cut at a character boundary, marked so a reader knows.
    static func bounded(_ text: String, _ maxLength: Int) -> String {
        text.count <= maxLength ? text : String(text.prefix(maxLength)) + "…"
    }
}
