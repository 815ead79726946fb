import Postgres
import SQLSchema

/// A person's verdict on one result.
public struct Correction: Sendable, Equatable {
    public enum Verdict: String, Sendable {
        /// What the service read is right.
        case confirmed
        /// A person says what is there; an empty text means "there is none".
        case corrected
        /// The photo does not show it: counts for no field (docs/console.md).
        case cannotTell = "cannot_tell"
    }

    public var resultID: Int
    public var verdict: Verdict
    /// nil: as read (or, for `confirmed` and `cannotTell`, nothing to say).
    public var operatorName: String?
    public var fleetID: String?
    public var licensePlate: String?
    public var category: String?
    /// Who: the trusted user header's value or the token's name (the console's user).
    public var by: String

    public init(
        resultID: Int, verdict: Verdict, operatorName: String? = nil, fleetID: String? = nil, licensePlate: String? = nil,
        category: String? = nil, by: String
    ) {
        self.resultID = resultID
        self.verdict = verdict
        self.operatorName = operatorName
        self.fleetID = fleetID
        self.licensePlate = licensePlate
        self.category = category
        self.by = by
    }

    /// A correction must name at least one field.
    public var isComplete: Bool {
        verdict != .corrected || operatorName != nil || fleetID != nil || licensePlate != nil || category != nil
    }
}

/// A person's verdicts, written by the console in its own transaction.
public enum Reviews {
    /// Records the verdict, with who and when; false when the result does not exist.
    public static func record(_ connection: Connection, _ correction: Correction) throws -> Bool {
        let corrected = correction.verdict == .corrected
        return try connection.run(
            Queries.Reviews.Record(
                result: correction.resultID, confirmed: correction.verdict == .confirmed, verdict: correction.verdict.rawValue,
                operatorName: corrected ? correction.operatorName : nil, fleetId: corrected ? correction.fleetID : nil,
                licensePlate: corrected ? correction.licensePlate : nil, category: corrected ? correction.category : nil, by: correction.by)
        ).first?.n == 1
    }
}
