/// The landmark predictor's labels and the names people read (docs/services.md, "Landmark predictor", the service's
/// seed 001). The model answers labels only; a label it learns later gets its words capitalised.
enum LandmarkLabels {
    static let displayNames: [String: String] = [
        "gediminas_tower": "Gediminas Tower",
        "vilnius_cathedral": "Vilnius Cathedral",
        "gate_of_dawn": "Gate of Dawn",
        "st_anne": "St. Anne's Church",
        "three_crosses": "Three Crosses Monument"
    ]

    static func displayName(_ label: String) -> String {
        displayNames[label]
            ?? label.split(whereSeparator: { $0 == "_" || $0 == " " })
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}
