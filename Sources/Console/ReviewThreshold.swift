import Foundation
import QueueReads
import Synchronization

/// Below which confidence the review page lists results when the request names no `below`:
/// a fixed value, or `auto`, the threshold the audit measurements recommend (the Quality view:
/// licence plates, at most 2 % wrong after review, the last 30 days), looked up at most once a
/// minute, 0.8 until a measurement can promise the target.
public enum ReviewThreshold: Sendable, Equatable {
    case fixed(Double)
    case measured

    public static let fallback = 0.8

    /// "auto", or a number from 0 to 1; nil for anything else.
    public init?(argument: String) {
        if argument == "auto" { self = .measured; return }
        guard let value = Double(argument), value.isFinite, (0...1).contains(value) else { return nil }
        self = .fixed(value)
    }
}

/// The measured threshold, kept for a minute.
final class MeasuredThreshold: Sendable {
    private let kept = Mutex<(value: Double, until: Date)?>(nil)

    func value(_ store: QueueReader) async -> Double {
        if let kept = kept.withLock({ $0 }), kept.until > Date() { return kept.value }
        let filter = QualityFilter(since: Date().addingTimeInterval(-30 * 86400), field: "license_plate", target: 0.02)
        let value = (try? await store.quality(filter))?.recommendation?.reviewBelow ?? ReviewThreshold.fallback
        kept.withLock { $0 = (value, Date().addingTimeInterval(60)) }
        return value
    }
}
