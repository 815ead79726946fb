import Foundation

/// Text as PostgreSQL can store it: a text value cannot hold NUL, and one service answering it
/// must not make a whole batch of results unwritable.
enum StoredText {
    static func clean(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacingOccurrences(of: "\0", with: "") : text
    }
}

/// JSON as a jsonb column accepts it.
///
/// jsonb refuses what JSON allows in a string: the escape `\u0000` and unpaired surrogate escapes
/// (`\ud800`). An answer holding either is parsed, cleaned (NUL dropped, unpaired surrogates
/// replaced) and written again; anything else goes in as it came. Text that is not a JSON object
/// or array is kept as a JSON string rather than lost.
enum StoredJSON {
    static func storable(_ text: String) -> String {
        let first = text.first { !$0.isWhitespace }
        guard first == "{" || first == "[" else { return quoted(text) }
        guard needsCleaning(text) else { return text }
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(withJSONObject: cleaned(value), options: [.sortedKeys])
        else {
            return quoted(text)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `\u0000`, `\uD800`…`\uDFFF` escapes, or a raw NUL. Cheap: one pass over the bytes.
    static func needsCleaning(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 6 else { return bytes.contains(0) }
        for index in bytes.indices {
            if bytes[index] == 0 { return true }
            guard bytes[index] == UInt8(ascii: "\\"), index + 5 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else { continue }
            let hex = String(decoding: bytes[(index + 2)...(index + 5)], as: UTF8.self).lowercased()
            if hex == "0000" || ("d800"..."dfff").contains(hex) { return true }
        }
        return false
    }

    private static func cleaned(_ value: Any) -> Any {
        switch value {
        case let text as String: return StoredText.clean(String(decoding: Array(text.utf8), as: UTF8.self))
        case let list as [Any]: return list.map(cleaned)
        case let object as [String: Any]:
            return Dictionary(object.map { (StoredText.clean($0.key), cleaned($0.value)) }, uniquingKeysWith: { first, _ in first })
        default: return value
        }
    }

    /// Any text as a JSON string; NUL dropped first, since jsonb refuses `\u0000`.
    static func quoted(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: StoredText.clean(text), options: .fragmentsAllowed)
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
