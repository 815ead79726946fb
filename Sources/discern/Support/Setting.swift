import ArgumentParser
import ServiceClients
import Foundation
import Imaging
import Logging
import MediaFiles
import ObjectStorage

/// A setting that cannot be used: printed as one line, exit status 64 (EX_USAGE), no usage text.
struct SettingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What settings share: the environment (which `--config FILE` fills too) and the path roots.
/// One-value settings are knobs (SettingFlag.swift): given as a flag, else as an environment variable,
/// else a default, checked either way; a wrong value stops the command with one line naming the
/// flag or the variable: `DISCERN_CONCURRENCY=abc` is an error, not a silent 16.
enum Setting {
    /// The folders job files may be read from: `--path-root` (repeatable; each may list several,
    /// separated by ':'), else $DISCERN_PATH_ROOTS; nil when neither names a folder. Entries
    /// that start `s3://` are buckets (`objectRoots`), not folders.
    static func pathRoots(_ given: [String]) throws -> PathRoots? {
        let folders = rootEntries(given).filter { !ObjectAddress.isObjectPath($0) }
        guard !folders.isEmpty else { return nil }
        do {
            return try PathRoots(folders)
        } catch {
            throw SettingError(error.message)
        }
    }

    /// The buckets and prefixes objects may be read from: the `s3://bucket/prefix` entries of
    /// the same list.
    static func objectRoots(_ given: [String]) throws -> [ObjectPrefix] {
        try rootEntries(given).filter(ObjectAddress.isObjectPath).map { entry in
            guard let prefix = ObjectPrefix(entry) else {
                throw SettingError("the path root \(entry) is not s3://bucket or s3://bucket/prefix with a valid bucket name")
            }
            return prefix
        }
    }

    /// Whether any path root is given, a folder or a bucket: a path of a kind with no root of
    /// its own is then outside them (the workers, reading the same list, would refuse it).
    static func rootsGiven(_ given: [String]) -> Bool { !rootEntries(given).isEmpty }

    /// The list split at its colons, but for the one in each `s3://`.
    private static func rootEntries(_ given: [String]) -> [String] {
        let listed = given.isEmpty ? (present("DISCERN_PATH_ROOTS").map { [$0] } ?? []) : given
        var entries: [String] = []
        for part in listed.flatMap({ $0.split(separator: ":", omittingEmptySubsequences: false) }) {
            let text = part.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("//"), entries.last == "s3" { entries[entries.count - 1] = "s3:" + text } else { entries.append(text) }
        }
        return entries.filter { !$0.isEmpty }
    }

    /// The object store the AWS variables and files describe, with the first source of the
    /// credential chain that is configured (docs/configuration.md, "Bucket credentials"); a
    /// setting that cannot be used stops the command with one line.
    static func objectStore(logger: Logger? = nil) throws -> ObjectStore {
        let variables = ServiceEnvironment(environment)
        do {
            return ObjectStore(settings: try StoreSettings(environment) { try variables.secret($0)?.plainText }, logger: logger)
        } catch {
            throw SettingError(error.message)
        }
    }

    /// The process's environment, the configuration file's settings included: the one place
    /// discern reads it (scripts/check-source.sh). Libraries take what they need as values
    /// (`Vips.configure`, `ServiceEnvironment`, `MemoryTuning.apply`, `TraceExport.startIfWanted`).
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// 3600 rather than 3600.0.
    static func plain(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    /// libvips' process-wide settings (`DISCERN_VIPS_CONCURRENCY`, `DISCERN_VIPS_ORC`), checked as
    /// a knob is: a wrong one stops the command with one line instead of being ignored.
    static func libvipsSettings() throws -> Vips.Settings {
        var settings = Vips.Settings()
        if let text = present("DISCERN_VIPS_CONCURRENCY") {
            guard let threads = Int(text), (1...1024).contains(threads) else {
                throw SettingError("DISCERN_VIPS_CONCURRENCY must be a whole number from 1 to 1024 (libvips threads per image), not \(text)")
            }
            settings.concurrency = threads
        }
        if let text = present("DISCERN_VIPS_ORC") {
            guard ["0", "1"].contains(text) else { throw SettingError("DISCERN_VIPS_ORC must be 1 (ORC vector code on) or 0 (off), not \(text)") }
            settings.vectors = text == "1"
        }
        return settings
    }

    static func present(_ name: String) -> String? {
        environment[name].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
    }
}
