import Foundation

/// `--config FILE` (or `$DISCERN_CONFIG`): settings as `NAME=value` lines, with the same names
/// as the environment variables (`DISCERN_DATABASE_URL`, `DISCERN_OOTO_URL`, libpq's `PGHOST`,
/// ...). They apply where the environment does not set the name already, so the order of
/// precedence is: flags, then the environment, then the file, then the defaults.
/// Blank lines and `#` comments are skipped; a value may be quoted. docs/configuration.md.
enum ConfigurationFile {
    /// Takes `--config FILE` / `--config=FILE` out of the arguments and applies the file.
    static func apply(arguments: [String]) throws -> [String] {
        var rest: [String] = []
        var path = Setting.environment["DISCERN_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument == "--config" {
                guard let value = iterator.next() else { throw SettingError("--config needs a file") }
                path = value
            } else if argument.hasPrefix("--config=") {
                path = String(argument.dropFirst("--config=".count))
            } else {
                rest.append(argument)
            }
        }
        if let path { try load(path) }
        return rest
    }

    static func load(_ path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingError("cannot read the configuration file \(path)")
        }
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw SettingError("\(path):\(number + 1): expected NAME=value")
            }
            let name = text[..<equals].trimmingCharacters(in: .whitespaces)
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw SettingError("\(path):\(number + 1): \(name) is not a variable name")
            }
            var value = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            setenv(name, value, 0)  // 0: the environment wins
        }
    }
}
