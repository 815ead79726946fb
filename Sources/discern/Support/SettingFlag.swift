import ArgumentParser
import ServiceClients
import Foundation

/// A configuration a command's settings fill. Its defaults are the runtime's own, so `--help`,
/// docs/configuration.md (checked against `--help` by a test) and the worker cannot disagree.
protocol SettingsRoot {
    static var defaults: Self { get }
}

/// One setting, declared once: its flag, its environment variable (which `--config FILE` may set
/// too), what it does and which values it takes, and where its value goes. `SettingFlag<Spec>` makes it a
/// flag with its help; `SettingFlags.apply` fills the configuration from every knob a command holds:
/// the flag, else the variable, else the default, each checked. A new setting is one spec, one
/// `@OptionGroup var name: SettingFlag<Spec>` line and its row in docs/configuration.md.
protocol SettingSpec {
    associatedtype Root: SettingsRoot
    associatedtype Value: ExpressibleByArgument
    associatedtype Stored
    static var flag: String { get }
    /// Declared as `String?` by every spec (`nil` for a flag without one): a default here would
    /// silently win over a spec that wrote a plain `String`.
    static var variable: String? { get }
    /// What it does and the values it takes, as `--help` says it; the default is added.
    static var summary: String { get }
    static var keyPath: any WritableKeyPath<Root, Stored> & Sendable { get }
    static func stored(_ value: Value) -> Stored
    /// The default as `--help` says it: the configuration's own, unless a spec says it better.
    static var defaultText: String { get }
    /// A flag's value, checked.
    static func checked(_ value: Value) throws -> Value
    /// A variable's text, read and checked.
    static func read(_ text: String, variable: String) throws -> Value
}

extension SettingSpec {
    static var help: String {
        "\(summary). Default: " + (variable.map { "$\($0), else " } ?? "") + "\(defaultText)."
    }

    static var defaultText: String {
        let value = Root.defaults[keyPath: keyPath]
        return (value as? Double).map(Setting.plain) ?? "\(value)"
    }
}

extension SettingSpec where Stored == Value {
    static func stored(_ value: Value) -> Stored { value }
}

extension SettingSpec where Stored == Value? {
    static func stored(_ value: Value) -> Stored { value }
}

/// A whole number within `range`.
protocol IntegerSetting: SettingSpec where Value == Int {
    static var range: ClosedRange<Int> { get }
}

extension IntegerSetting {
    static func checked(_ value: Int) throws -> Int {
        guard range.contains(value) else { throw SettingError("--\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound)") }
        return value
    }

    static func read(_ text: String, variable: String) throws -> Int {
        do { return try ConfigurationValue.integer(text, name: variable, in: range) } catch { throw SettingError(error.description) }
    }
}

/// A number within `range` (seconds, a ratio).
protocol NumberSetting: SettingSpec where Value == Double {
    static var range: ClosedRange<Double> { get }
}

extension NumberSetting {
    static func checked(_ value: Double) throws -> Double {
        guard value.isFinite, range.contains(value) else {
            throw SettingError("--\(flag) must be a number from \(Setting.plain(range.lowerBound)) to \(Setting.plain(range.upperBound))")
        }
        return value
    }

    static func read(_ text: String, variable: String) throws -> Double {
        do { return try ConfigurationValue.number(text, name: variable, in: range) } catch { throw SettingError(error.description) }
    }
}

/// One of an enumeration's values.
protocol ChoiceSetting: SettingSpec where Value: CaseIterable & RawRepresentable, Value.RawValue == String {}

extension ChoiceSetting {
    static func checked(_ value: Value) throws -> Value { value }

    static func read(_ text: String, variable: String) throws -> Value {
        guard let chosen = Value(rawValue: text.trimmingCharacters(in: .whitespaces)) else {
            throw SettingError(
                "\(variable) is '\(TerminalText.safe(text))'; it must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return chosen
    }

    static var defaultText: String {
        let value = Root.defaults[keyPath: keyPath]
        return (value as? Value)?.rawValue ?? "\(value)"
    }
}

/// Text taken as it is (a host, a URL).
protocol TextSetting: SettingSpec where Value == String {}

extension TextSetting {
    static func checked(_ value: String) throws -> String { value }
    static func read(_ text: String, variable: String) throws -> String { text }
}

/// A spec as a flag of the command that holds it (`@OptionGroup var name: SettingFlag<Spec>`).
struct SettingFlag<Spec: SettingSpec>: ParsableArguments, AppliedSetting {
    @Option(name: .customLong(Spec.flag), help: ArgumentHelp(Spec.help, valueName: Spec.flag)) var value: Spec.Value?

    var flag: String { Spec.flag }

    func apply(to root: inout Spec.Root) throws -> SettingFlags.Source {
        if let value {
            root[keyPath: Spec.keyPath] = Spec.stored(try Spec.checked(value))
            return .flag("--" + Spec.flag)
        }
        if let variable = Spec.variable, let text = Setting.present(variable) {
            root[keyPath: Spec.keyPath] = Spec.stored(try Spec.read(text, variable: variable))
            return .variable(variable)
        }
        return .defaulted
    }
}

protocol AppliedSetting<Root> {
    associatedtype Root
    var flag: String { get }
    func apply(to root: inout Root) throws -> SettingFlags.Source
}

/// What `@OptionGroup` holds, so `SettingFlags.apply` finds each knob among a command's properties.
protocol SettingFlagGroup {
    var knob: any AppliedSetting { get }
}

extension OptionGroup: SettingFlagGroup where Value: AppliedSetting {
    var knob: any AppliedSetting { wrappedValue }
}

enum SettingFlags {
    /// Where a setting's value came from (said at start where it matters: the memory budget).
    enum Source: Equatable {
        case flag(String), variable(String), defaulted
    }

    /// Every knob among `holder`'s properties applied to the defaults, in declaration order;
    /// with where each value came from, by flag.
    static func apply<Root>(_ holder: Any, to root: Root) throws -> (Root, [String: Source]) {
        var root = root, sources: [String: Source] = [:]
        for child in Mirror(reflecting: holder).children {
            guard let knob = (child.value as? any SettingFlagGroup)?.knob as? any AppliedSetting<Root> else { continue }
            sources[knob.flag] = try knob.apply(to: &root)
        }
        return (root, sources)
    }
}
