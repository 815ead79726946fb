import Foundation

/// The AWS tools' own files, read as they read them: `~/.aws/config` (`AWS_CONFIG_FILE`), whose
/// sections are `[default]` and `[profile NAME]`, and `~/.aws/credentials`
/// (`AWS_SHARED_CREDENTIALS_FILE`), whose sections are `[NAME]`. A profile's settings are both
/// files' together, the credentials file's winning where both name a key. Indented lines (a
/// service's nested settings) and comments (`#`, `;`) are skipped.
struct SharedConfigFiles: Sendable {
    let configPath: String
    let credentialsPath: String
    private let config: [String: [String: String]]
    private let credentials: [String: [String: String]]

    init(configPath: String, configText: String?, credentialsPath: String, credentialsText: String?) {
        self.configPath = configPath
        self.credentialsPath = credentialsPath
        config = configText.map { Self.sections($0, isConfig: true) } ?? [:]
        credentials = credentialsText.map { Self.sections($0, isConfig: false) } ?? [:]
    }

    /// The files the variables name (or the home folder's), read if they are there.
    static func load(_ variables: [String: String]) -> SharedConfigFiles {
        let home = variables["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func path(_ variable: String, _ fallback: String) -> String {
            let given = variables[variable].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.aws/\(fallback)"
            return given.hasPrefix("~/") ? home + given.dropFirst() : given
        }
        let configPath = path("AWS_CONFIG_FILE", "config"), credentialsPath = path("AWS_SHARED_CREDENTIALS_FILE", "credentials")
        func read(_ path: String) -> String? {
            // A profile holds a few lines; a file far larger is not one of these.
            guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
        return SharedConfigFiles(
            configPath: configPath, configText: read(configPath), credentialsPath: credentialsPath, credentialsText: read(credentialsPath))
    }

    /// The profile's settings, keys in lower case; nil when neither file has it.
    func profile(_ name: String) -> [String: String]? {
        let fromConfig = config[name], fromCredentials = credentials[name]
        guard fromConfig != nil || fromCredentials != nil else { return nil }
        return (fromConfig ?? [:]).merging(fromCredentials ?? [:]) { $1 }
    }

    /// Where a profile's key was read, for a message.
    func origin(of name: String, key: String) -> String {
        credentials[name]?[key] != nil ? credentialsPath : configPath
    }

    static func sections(_ text: String, isConfig: Bool) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            guard let first = rawLine.first, first != " ", first != "\t" else { continue }
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                let title = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                current = Self.profileName(title, isConfig: isConfig)
                if let current, sections[current] == nil { sections[current] = [:] }
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[current, default: [:]][key] = value
        }
        return sections
    }

    /// `[profile NAME]` and `[default]` in the config file; `[NAME]` in the credentials file.
    private static func profileName(_ title: String, isConfig: Bool) -> String? {
        guard isConfig else { return title }
        if title == "default" { return title }
        guard title.hasPrefix("profile ") || title.hasPrefix("profile\t") else { return nil }
        return title.dropFirst("profile".count).trimmingCharacters(in: .whitespaces)
    }
}
