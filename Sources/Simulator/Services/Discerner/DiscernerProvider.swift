import Crypto
import Foundation
import Synchronization

/// Which provider Image Discerner's answers name (`classification_provider`, `text_provider`),
/// and how its answers differ from the baseline: the real service changes providers under its
/// users, and re-analysis and trials are tested against a known share of photos on which two
/// providers disagree.
///
/// A photo disagrees when a draw from its bytes falls under `disagreement` (so the same photo
/// always does, at any share above its draw); the field it disagrees on is drawn from its bytes
/// too, so a test can count the disagreements by hand (`disagreement(of:share:)`).
public struct DiscernerProvider: Sendable, Equatable {
    public var name: String
    /// Share of photos (0...1) whose answer differs from the baseline provider's in one field.
    public var disagreement: Double

    public init(name: String = "simulator", disagreement: Double = 0) {
        self.name = name
        self.disagreement = min(1, max(0, disagreement))
    }

    /// The fields a disagreement changes, one per photo: what a comparison counts.
    public enum Field: String, Sendable, CaseIterable {
        case category, serviceOperator = "operator", fleetID = "fleet_id", licensePlate = "license_plate"
    }

    /// The field on which a provider with `share` disagrees with the baseline about `image`; nil
    /// when it agrees. Photos the baseline recognises nothing in disagree on their category;
    /// aircraft (no fleet, no plate) on their operator.
    public static func disagreement(of image: Data, share: Double) -> Field? {
        let digest = Array(SHA256.hash(data: Data("provider".utf8) + image))
        let draw = Double(Int(digest[0]) << 8 | Int(digest[1])) / 65_536
        guard draw < share else { return nil }
        let scene = DiscernerScene(image: image, provider: DiscernerProvider())
        switch scene.things[0].type {
        case "unknown": return .category
        case "commercial_vehicle:jet_aircraft": return .serviceOperator
        default: return Field.allCases[Int(digest[2]) % Field.allCases.count]
        }
    }
}

/// The provider the simulator answers as now: set at start, changed by `POST /_sim/discerner-provider`
/// (`{"name": "...", "disagreement": 0.05}`), as the real service changes its provider mid-season.
final class DiscernerProviderState: Sendable {
    private let current: Mutex<DiscernerProvider>

    init(_ provider: DiscernerProvider) { current = Mutex(provider) }

    var value: DiscernerProvider { current.withLock { $0 } }

    /// Reads a control request's body; nil when it is not one.
    func set(json body: Data) -> DiscernerProvider? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let name = object["name"] as? String, !name.isEmpty, name.count <= 100
        else { return nil }
        let share = (object["disagreement"] as? NSNumber)?.doubleValue ?? 0
        guard share.isFinite, (0...1).contains(share) else { return nil }
        let provider = DiscernerProvider(name: name, disagreement: share)
        current.withLock { $0 = provider }
        return provider
    }
}
