import Postgres

/// A person's verdict on one result.
public struct Correction: Sendable, Equatable {
    public var resultID: Int
    public var confirmed: Bool
    public var operatorName: String?
    public var fleetID: String?
    public var licensePlate: String?
    public var by: String

    public init(resultID: Int, confirmed: Bool, operatorName: String? = nil, fleetID: String? = nil, licensePlate: String? = nil, by: String) {
        self.resultID = resultID
        self.confirmed = confirmed
        self.operatorName = operatorName
        self.fleetID = fleetID
        self.licensePlate = licensePlate
        self.by = by
    }
}

/// A person's verdicts, written by the console in its own transaction.
public enum Reviews {
    /// Records the verdict; false when the result does not exist.
    public static func record(_ connection: Connection, _ correction: Correction) throws -> Bool {
        try connection.query("""
            INSERT INTO discern.corrections (result_id, confirmed, operator, fleet_id, license_plate, corrected_by)
            SELECT id, $2, $3, $4, $5, $6 FROM discern.results WHERE id = $1
            """, [correction.resultID, correction.confirmed, correction.operatorName, correction.fleetID,
                  correction.licensePlate, correction.by]).affected == 1
    }
}
