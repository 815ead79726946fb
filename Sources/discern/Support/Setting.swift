import ArgumentParser
import Backends
import Foundation
import MediaFiles

/// A setting that cannot be used: printed as one line, exit status 64 (EX_USAGE), no usage text.
struct SettingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What settings share: the environment (which `--config FILE` fills too) and the path roots.
/// One-value settings are knobs (Knob.swift): given as a flag, else as an environment variable,
/// else a default, checked either way; a wrong value stops the command with one line naming the
/// flag or the variable: `DISCERN_CONCURRENCY=abc` is an error, not a silent 16.
enum Setting {
    /// The folders job files may be read from: `--path-root` (repeatable; each may list several,
    /// separated by ':'), else $DISCERN_PATH_ROOTS; nil when neither is given.
    static func pathRoots(_ given: [String]) throws -> PathRoots? {
        let listed = given.isEmpty ? (present("DISCERN_PATH_ROOTS").map { [$0] } ?? []) : given
        guard !listed.isEmpty else { return nil }
        do {
            return try PathRoots(listed.flatMap { $0.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) } })
        } catch {
            throw SettingError(error.message)
        }
    }

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// 3600 rather than 3600.0.
    static func plain(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    static func present(_ name: String) -> String? {
        environment[name].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
    }
}
