import Foundation
import Testing

@testable import Simulator

/// The simulator answers as two providers that disagree on a known share of photos, in one
/// field each: what re-analysis and trials are measured against.
@Suite("Simulator: Image Discerner's provider versions")
struct DiscernerProviderTests {
    /// The fields a comparison reads from an answer's primary subject, as discern stores them.
    struct Fields: Equatable {
        let category: String, serviceOperator: String?, fleet: String?, plate: String?

        init(_ scene: DiscernerScene) {
            let thing = scene.things[0]
            category = String(thing.type.split(separator: ":").first ?? "")
            serviceOperator = thing.serviceOperator
            fleet = thing.identifiers.first { $0.hasPrefix("fleet:") }
            plate = thing.identifiers.first { $0.hasPrefix("license_plate:") }
        }

        func differing(from other: Fields) -> [DiscernerProvider.Field] {
            var fields: [DiscernerProvider.Field] = []
            if category != other.category { fields.append(.category) }
            if serviceOperator != other.serviceOperator { fields.append(.serviceOperator) }
            if fleet != other.fleet { fields.append(.fleetID) }
            if plate != other.plate { fields.append(.licensePlate) }
            return fields
        }
    }

    static let photos: [Data] = {
        var generator = SplitMix64(seed: 67)
        return (0..<2_000).map { _ in Data((0..<64).map { _ in UInt8(truncatingIfNeeded: generator.next()) }) }
    }()

    @Test("at a share of 5 %, about 5 % of 2,000 photos disagree, each in exactly the field the simulator names; the rest answer as the baseline")
    func disagreements() {
        let candidate = DiscernerProvider(name: "candidate-v2", disagreement: 0.05)
        var counted: [DiscernerProvider.Field: Int] = [:]
        for photo in Self.photos {
            let baseline = Fields(DiscernerScene(image: photo, provider: DiscernerProvider()))
            let answered = Fields(DiscernerScene(image: photo, provider: candidate))
            let named = DiscernerProvider.disagreement(of: photo, share: 0.05)
            #expect(
                answered.differing(from: baseline) == (named.map { [$0] } ?? []), "\(baseline) vs \(answered), named \(String(describing: named))")
            if let named { counted[named, default: 0] += 1 }
        }
        let total = counted.values.reduce(0, +)
        // 100 expected; the binomial's 4-sigma band (a fixed draw: the same count every run).
        #expect((60...140).contains(total), "\(total) disagree: \(counted)")
        #expect(counted.count == 4, "every field is drawn: \(counted)")
    }

    @Test("a photo that disagrees at 5 % disagrees at 10 % in the same field; at 0 none does, and the answer names its provider")
    func nestedShares() {
        for photo in Self.photos.prefix(500) {
            if let field = DiscernerProvider.disagreement(of: photo, share: 0.05) {
                #expect(DiscernerProvider.disagreement(of: photo, share: 0.10) == field)
            }
            #expect(DiscernerProvider.disagreement(of: photo, share: 0) == nil)
        }
        let scene = DiscernerScene(image: Self.photos[0], provider: DiscernerProvider(name: "vision-2026-10"))
        let metadata = scene.formatThree(imageKey: "k", processingMilliseconds: 1)["processing_metadata"] as? [String: Any]
        #expect(metadata?["classification_provider"] as? String == "vision-2026-10" && metadata?["text_provider"] as? String == "vision-2026-10")
    }

    @Test("the control endpoint's body: a name and a share in 0...1, anything else refused")
    func controlBodies() {
        let state = DiscernerProviderState(DiscernerProvider())
        #expect(state.set(json: Data(#"{"name": "v2", "disagreement": 0.25}"#.utf8)) == DiscernerProvider(name: "v2", disagreement: 0.25))
        #expect(state.value.name == "v2")
        for bad in [#"{"disagreement": 0.1}"#, #"{"name": "", "disagreement": 0.1}"#, #"{"name": "v3", "disagreement": 2}"#, "[]", "not json"] {
            #expect(state.set(json: Data(bad.utf8)) == nil, "\(bad)")
        }
        #expect(state.value == DiscernerProvider(name: "v2", disagreement: 0.25))
    }
}
