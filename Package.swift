// swift-tools-version:6.1
import PackageDescription

// Applied to every Swift target in one place, as swift-log does.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility")
]

let package = Package(
    name: "discern",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "discern", targets: ["discern"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        // Hummingbird's own dependencies, named for the simulator's arrival stamp (a channel handler).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // OpenTelemetry traces (docs/tracing.md): the API every module speaks, and the OTLP/HTTP
        // exporter that only the executable starts. gRPC is left out: it would double the build.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"])
    ],
    targets: [
        // C libraries, found through pkg-config; apt names the Debian package to install.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Shims for what Swift cannot call: variadic functions.
        .target(name: "CVipsShim", dependencies: ["CVips"]),
        // openat2(2), which has no libc wrapper: opening job files without following symlinks.
        .target(name: "CFileShim"),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // The simulator's own libvips calls: it judges uploads without the product's Imaging.
        .target(name: "CVipsSimulatorShim", dependencies: ["CVips"]),
        // Sample photos (discern samples, the demo): not the product's imaging.
        .target(name: "CVipsSampleShim", dependencies: ["CVips"]),

        .target(name: "DedicatedThreads", swiftSettings: swiftSettings),
        // The stable error code, written once; each module's error declares its own codes.
        .target(name: "ErrorCodes", swiftSettings: swiftSettings),
        .target(name: "Postgres", dependencies: ["CLibPQ", "DedicatedThreads", "ErrorCodes"], swiftSettings: swiftSettings),
        // The schema's source, sql/ (docs/sql.md): the BundleSQL plugin compiles every .sql file
        // there into the binary, so `discern migrate` needs nothing beside it and a new file is
        // all a new migration or function takes.
        .target(
            name: "SQLSchema", dependencies: ["Postgres"], path: "sql",
            exclude: ["schema.sql", "grants.sql", "migrations", "functions", "views", "queries"],
            sources: ["Schema.swift", "Queries.swift"],
            swiftSettings: swiftSettings,
            plugins: ["BundleSQL"]
        ),
        .executableTarget(name: "SQLBundler", path: "Plugins/SQLBundler"),
        .plugin(name: "BundleSQL", capability: .buildTool(), dependencies: ["SQLBundler"], path: "Plugins/BundleSQL"),
        // What this binary is (release, commit, compiler), for `discern version`: the commit is
        // stamped by the StampBuild plugin before each build.
        .target(name: "BuildInfo", swiftSettings: swiftSettings, plugins: ["StampBuild"]),
        .plugin(name: "StampBuild", capability: .buildTool(), path: "Plugins/StampBuild"),
        // Spans for a job's journey, in OpenTelemetry's messaging conventions, through
        // swift-distributed-tracing's API: nothing but a flag's check while tracing is off.
        .target(name: "Telemetry", dependencies: [.product(name: "Tracing", package: "swift-distributed-tracing")], swiftSettings: swiftSettings),
        // The OTLP/HTTP exporter (swift-otel), started by a process when the OTEL_* variables ask.
        .target(
            name: "TraceExport",
            dependencies: [
                "Telemetry", .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log")
            ], swiftSettings: swiftSettings),
        // What a service found: the vocabulary backends return and the queue stores.
        .target(name: "AnalysisModel", swiftSettings: swiftSettings),
        .target(name: "JobQueue", dependencies: ["Postgres", "SQLSchema", "AnalysisModel", "ErrorCodes"], swiftSettings: swiftSettings),
        // The read model: one Codable view and one SQL document per question (overview, batches,
        // a batch's report, results, jobs, one job, failures, review), for the console and the CLI.
        .target(name: "QueueReads", dependencies: ["Postgres", "SQLSchema"], swiftSettings: swiftSettings),
        // Job files opened safely (under the path roots, no symlink followed, read through the
        // descriptor) and told apart by their first bytes: no libvips.
        .target(name: "MediaFiles", dependencies: ["CFileShim", "ErrorCodes"], swiftSettings: swiftSettings),
        .target(name: "Imaging", dependencies: ["CVips", "CVipsShim", "MediaFiles", "DedicatedThreads", "ErrorCodes"], swiftSettings: swiftSettings),
        .target(name: "CurlHTTP", dependencies: ["CCurl", "CCurlShim", "DedicatedThreads", "ErrorCodes"], swiftSettings: swiftSettings),
        // Photos in S3-compatible buckets: SigV4-signed HEAD, GET into a file, ListObjectsV2, with
        // the credentials the AWS SDKs' default chain finds (keys, profiles, web identity, the
        // container endpoint, IMDSv2).
        .target(
            name: "ObjectStorage",
            dependencies: [
                "CurlHTTP", "DedicatedThreads", "ErrorCodes", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: swiftSettings),
        // discern enqueue's pipeline (Enqueuer): finding files under the path roots, keying them by
        // content, finding near-duplicates, staging and inserting them through JobQueue.
        .target(
            name: "Enqueueing",
            dependencies: [
                "MediaFiles", "ObjectStorage", "DedicatedThreads", "ErrorCodes", "JobQueue", "Postgres", "Imaging", "Telemetry",
                .product(name: "Tracing", package: "swift-distributed-tracing"), .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "SampleImages", dependencies: ["Imaging", "MediaFiles", "CVips", "CVipsShim", "CVipsSampleShim"], swiftSettings: swiftSettings),
        .target(
            name: "ServiceClients",
            dependencies: [
                "CurlHTTP", "Imaging", "MediaFiles", "AnalysisModel", "ErrorCodes", "Telemetry",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
                // HMAC-SHA256 for the batch notifications' signature, SHA-256 for a webhook's name.
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: swiftSettings
        ),
        // /metrics, /healthz and /readyz for a long-running process, and the loop every periodic
        // service shares: the worker's and the monitor's.
        .target(
            name: "Observability",
            dependencies: [
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird")
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Worker",
            dependencies: [
                "JobQueue", "Postgres", "Imaging", "MediaFiles", "ObjectStorage", "ServiceClients", "DedicatedThreads", "ErrorCodes", "AnalysisModel",
                "Observability", "Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle")
            ],
            swiftSettings: swiftSettings
        ),
        // discern monitor: the queue for Prometheus, read through the read model.
        .target(
            name: "Monitor",
            dependencies: [
                "QueueReads", "Observability",
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            swiftSettings: swiftSettings
        ),
        // discern console: pages, their JSON twins, thumbnails and actions over the same database.
        .target(
            name: "Console",
            dependencies: [
                "JobQueue", "QueueReads", "Postgres", "Imaging", "MediaFiles", "ObjectStorage", "DedicatedThreads", "ErrorCodes",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Simulator",
            dependencies: [
                "CVipsSimulatorShim", "DedicatedThreads",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "discern",
            dependencies: [
                "BuildInfo", "SQLSchema", "ObjectStorage", "Worker", "Monitor", "Observability", "Simulator", "ServiceClients", "CurlHTTP",
                "JobQueue",
                "QueueReads", "Postgres", "Imaging", "MediaFiles", "SampleImages", "Enqueueing", "Console", "DedicatedThreads", "Telemetry",
                "TraceExport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: swiftSettings
        ),

        // Benchmarks: not tests. Run with bench/queue/run.sh.
        .executableTarget(
            name: "QueueBench", dependencies: ["JobQueue", "Postgres", "AnalysisModel"], path: "bench/queue/Sources",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "ScaleBench",
            dependencies: [
                "Worker", "ServiceClients", "Imaging", "JobQueue", "Postgres", "AnalysisModel", "TraceExport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle")
            ],
            path: "bench/scale/Sources", swiftSettings: swiftSettings),
        .executableTarget(name: "NearDuplicateBench", dependencies: ["Enqueueing"], path: "bench/neardup/Sources", swiftSettings: swiftSettings),

        // What only the tests use, kept out of the product: image fixtures and their libvips
        // calls, the in-process simulator with scripted replies, enqueueing bare paths.
        .target(name: "CVipsFixtureShim", dependencies: ["CVips"], path: "Tests/CVipsFixtureShim"),
        .target(
            name: "TestFixtures",
            dependencies: [
                "CVips", "CVipsShim", "CVipsFixtureShim", "CVipsSampleShim", "Imaging", "MediaFiles", "SampleImages", "Simulator", "JobQueue",
                "Postgres",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            path: "Tests/TestFixtures", swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "UnitTests",
            dependencies: [
                "Imaging", "MediaFiles", "Simulator", "CurlHTTP", "ObjectStorage", "ServiceClients", "JobQueue", "QueueReads", "Postgres",
                "AnalysisModel",
                "SampleImages", "Enqueueing",
                "Worker", "Console", "TestFixtures", "Telemetry", "TraceExport", "ErrorCodes", "SQLSchema"
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Worker", "Simulator", "JobQueue", "QueueReads", "Postgres", "CurlHTTP", "ObjectStorage", "Imaging", "MediaFiles", "ServiceClients",
                "SQLSchema", "AnalysisModel", "SampleImages", "ErrorCodes",
                "TestFixtures", "DedicatedThreads",
                .product(name: "Logging", package: "swift-log")
            ],
            // A database made by the release before sql/ became source (pg_dump's custom format),
            // which the upgrade test migrates.
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        )
    ]
)
