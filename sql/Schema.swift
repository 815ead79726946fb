import Foundation

/// The versioned migrations of sql/migrations, compiled into the binary (Package.swift embeds
/// each file), so `discern migrate` needs nothing beside the executable. File names are
/// `NNNN_description.sql`; NNNN is the version recorded once applied.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String
}

public enum Schema {
    /// Each file with its embedded bytes. SwiftPM names the constant after the file, without
    /// its first digit; `MigrationTests` checks that every file of sql/migrations is here.
    private static let embedded: [(file: String, bytes: [UInt8])] = [
        ("0001_initial_schema.sql", PackageResources._001_initial_schema_sql),
        ("0002_queue_operations.sql", PackageResources._002_queue_operations_sql),
        ("0003_backends_and_rate_limits.sql", PackageResources._003_backends_and_rate_limits_sql),
        ("0004_leaner_completion.sql", PackageResources._004_leaner_completion_sql),
        ("0005_entities_and_spacing.sql", PackageResources._005_entities_and_spacing_sql),
        ("0006_roles.sql", PackageResources._006_roles_sql),
        ("0007_worker_registry.sql", PackageResources._007_worker_registry_sql),
        ("0008_review.sql", PackageResources._008_review_sql),
        ("0009_batch_summaries.sql", PackageResources._009_batch_summaries_sql),
        ("0010_batch_progress_summaries.sql", PackageResources._010_batch_progress_summaries_sql),
        ("0011_rollups.sql", PackageResources._011_rollups_sql),
        ("0012_claims_by_backend.sql", PackageResources._012_claims_by_backend_sql),
        ("0013_results_by_batch.sql", PackageResources._013_results_by_batch_sql),
        ("0014_crash_attribution.sql", PackageResources._014_crash_attribution_sql),
        ("0015_unlimited_keys.sql", PackageResources._015_unlimited_keys_sql),
        ("0016_bounded_retries.sql", PackageResources._016_bounded_retries_sql),
        ("0017_enqueue_only_enqueues.sql", PackageResources._017_enqueue_only_enqueues_sql),
        ("0018_rate_leases.sql", PackageResources._018_rate_leases_sql),
        ("0019_fair_share.sql", PackageResources._019_fair_share_sql),
        ("0020_enqueue_many_skips_results.sql", PackageResources._020_enqueue_many_skips_results_sql),
        ("0021_audit_and_accuracy.sql", PackageResources._021_audit_and_accuracy_sql),
        ("0022_cheaper_claims.sql", PackageResources._022_cheaper_claims_sql),
        ("0023_paused_services.sql", PackageResources._023_paused_services_sql),
        ("0024_drop_take_rate_token.sql", PackageResources._024_drop_take_rate_token_sql),
        ("0025_operator_actions.sql", PackageResources._025_operator_actions_sql),
        ("0026_change_notifications.sql", PackageResources._026_change_notifications_sql),
        ("0027_worker_rate.sql", PackageResources._027_worker_rate_sql),
        ("0028_delete_and_find.sql", PackageResources._028_delete_and_find_sql),
    ]

    public static func migrations() throws -> [Migration] {
        try embedded.map { file, bytes in
            let stem = file.replacingOccurrences(of: ".sql", with: "")
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]) else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(file) is not named NNNN_description.sql"])
            }
            return Migration(version: version, name: String(stem[stem.index(after: underscore)...]),
                             sql: String(decoding: bytes, as: UTF8.self))
        }.sorted { $0.version < $1.version }
    }
}
