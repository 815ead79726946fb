import ArgumentParser
import Backends
import Foundation
import MediaFiles

/// A setting that cannot be used: printed as one line, exit status 64 (EX_USAGE), no usage text.
struct SettingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A setting given as a flag, else as an environment variable (or the `--config` file), else a
/// default; checked either way. A wrong value stops the command with one line naming the flag
/// and the variable: `DISCERN_CONCURRENCY=abc` is an error, not a silent 16.
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

    static func integer(_ flag: Int?, _ option: String, env: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        if let flag {
            guard range.contains(flag) else { throw SettingError("--\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound)") }
            return flag
        }
        guard let text = present(env) else { return value }
        do { return try ConfigurationValue.integer(text, name: env, in: range) } catch { throw SettingError(error.description) }
    }

    static func number(_ flag: Double?, _ option: String, env: String? = nil, default value: Double, in range: ClosedRange<Double>) throws -> Double {
        if let flag {
            guard flag.isFinite, range.contains(flag) else {
                throw SettingError("--\(option) must be a number from \(plain(range.lowerBound)) to \(plain(range.upperBound))")
            }
            return flag
        }
        guard let env, let text = present(env) else { return value }
        do { return try ConfigurationValue.number(text, name: env, in: range) } catch { throw SettingError(error.description) }
    }

    /// 3600 rather than 3600.0.
    static func plain(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    /// One of an enumeration's values: the flag, else the variable (checked), else the default.
    static func choice<T: RawRepresentable & CaseIterable>(_ flag: T?, env: String, default value: T) throws -> T where T.RawValue == String {
        if let flag { return flag }
        guard let text = present(env) else { return value }
        guard let chosen = T(rawValue: text.trimmingCharacters(in: .whitespaces)) else {
            throw SettingError("\(env) is '\(TerminalText.safe(text))'; it must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return chosen
    }

    static func present(_ name: String) -> String? {
        environment[name].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
    }
}
