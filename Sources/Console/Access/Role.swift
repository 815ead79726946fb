import Foundation

/// What a console user may do (docs/console.md, "Who may act"). Each role may do what the one
/// below it may, and more.
public enum ConsoleRole: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
    /// Reads every page but the services' raw answers; acts on nothing.
    case viewer
    /// Retries, cancels, deletes, reviews, pauses and resumes.
    case `operator`
    /// Also sets the services' rate limits and spend caps.
    case admin

    public init?(name: String) {
        guard let role = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = role
    }

    public var description: String {
        switch self {
        case .viewer: "viewer"
        case .operator: "operator"
        case .admin: "admin"
        }
    }

    public static func < (a: ConsoleRole, b: ConsoleRole) -> Bool { a.rawValue < b.rawValue }
}

/// Who is who behind a reverse proxy: the user names its header carries, mapped to roles
/// (`alice@example.org=admin, bob=operator, *=viewer`). A name not listed gets the `*` entry's
/// role, or viewer: a map is an allow-list, so somebody new reads until somebody says more.
public struct RoleMap: Sendable, Equatable {
    public let roles: [String: ConsoleRole]
    public let others: ConsoleRole

    /// Comma-separated `NAME=ROLE` entries; names compare without case (proxies send e-mail
    /// addresses as people typed them). A failure names the entry that does not parse.
    public static func parse(_ text: String) -> Result<RoleMap, RoleMapError> {
        var roles: [String: ConsoleRole] = [:], others = ConsoleRole.viewer
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 200, let role = ConsoleRole(name: parts[1]) else {
                return .failure(RoleMapError(entry: String(entry.prefix(100))))
            }
            if parts[0] == "*" { others = role } else { roles[parts[0].lowercased()] = role }
        }
        return .success(RoleMap(roles: roles, others: others))
    }

    public func role(of user: String) -> ConsoleRole { roles[user.lowercased()] ?? others }
}

public struct RoleMapError: Error, CustomStringConvertible {
    let entry: String
    public var description: String {
        "the console's roles: '\(entry)' is not NAME=ROLE with ROLE viewer, operator or admin (e.g. alice@example.org=admin,*=viewer)"
    }
}
