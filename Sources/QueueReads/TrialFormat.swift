import Foundation

/// How a trial's figures read, in the terminal and on the console alike.
public enum TrialFormat {
    /// "100 photos" or "5 %".
    public static func sample(_ count: Int?, _ share: Double?) -> String {
        count.map { "\($0) photos" } ?? share.map { String(format: "%g %%", $0 * 100) } ?? "-"
    }

    public static func percent(_ share: Double) -> String { String(format: "%.1f %%", share * 100) }

    /// A 95 % interval, "85.0-95.9 %"; "-" without one.
    public static func interval(_ low: Double?, _ high: Double?) -> String {
        guard let low, let high else { return "-" }
        return String(format: "%.1f-%.1f %%", low * 100, high * 100)
    }

    /// "3/4 (30.1-95.4 %)", "-" when nothing was reviewed.
    public static func right(_ count: Int, of total: Int, _ low: Double?, _ high: Double?) -> String {
        total > 0 ? "\(count)/\(total) (\(interval(low, high)))" : "-"
    }

    public static func milliseconds(_ value: Double?) -> String { value.map { String(format: "%.0f ms", $0) } ?? "-" }
}
