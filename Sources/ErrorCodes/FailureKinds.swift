/// The registry: every `error_kind` a job can carry, and what discern decides by it (see
/// `FailureKind`). A kind raised anywhere is one of these; `FailureKindTests` fails on a literal
/// kind anywhere else in Sources/ or sql/, and docs/design.md's table is checked against it.
extension FailureKind {
    // Preparing the photo: its file, its pixels (Imaging, MediaFiles)
    public static let imageEmpty = FailureKind(
        "image_empty", .file, retry: .never,
        "The file is empty (0 bytes): replace it, then retry.")
    public static let imageUnsupportedFormat = FailureKind(
        "image_unsupported_format", .file, retry: .never,
        "Not a format discern reads (JPEG, PNG, WebP, HEIC, TIFF, GIF and video first frames do): convert it, then retry.")
    public static let imageUndecodable = FailureKind(
        "image_undecodable", .file, retry: .never,
        "The file claims a format but its data cannot be decoded: replace it, then retry.")
    public static let imageTruncated = FailureKind(
        "image_truncated", .file, retry: .once,
        "The file ends early; it was tried once more later, in case it was still arriving: replace it, then retry.")
    public static let imageTooManyPixels = FailureKind(
        "image_too_many_pixels", .file, retry: .never,
        "More pixels than discern decodes (a decompression bomb, or a huge panorama): shrink the file, then retry.")
    public static let imageSourceTooLarge = FailureKind(
        "image_source_too_large", .file, retry: .never,
        "Larger than discern reads for its service, on disk or in the bucket: shrink the file, then retry.")
    public static let imageTooSmall = FailureKind(
        "image_too_small", .file, retry: .never,
        "Smaller than the service accepts, even sent as it is: nothing to fix but the photo.")
    public static let imageCannotFit = FailureKind(
        "image_cannot_fit", .file, retry: .never,
        "Cannot be brought under the service's byte limit at any quality discern allows: shrink the photo, then retry.")
    public static let imageUnreadable = FailureKind(
        "image_unreadable", .system, retry: .yes, attempt: .lastHandBack,
        "The worker could not read the file (a failing or unmounted volume, permissions, memory, disk or descriptors running out): fix that, then retry."
    )
    public static let imageProcessingFailed = FailureKind(
        "image_processing_failed", .file, retry: .never,
        "libvips failed on this image (its message says how): inspect the file.")
    public static let pathNotAllowed = FailureKind(
        "path_not_allowed", .file, retry: .never,
        "The path is outside the worker's DISCERN_PATH_ROOTS (or reached through a symlink out of them, or a bucket the worker is not given): move the file or widen the roots, then retry."
    )
    public static let fileNotFound = FailureKind(
        "file_not_found", .file, retry: .never,
        "No file (or object) at the path: fix the path or remount the share, then discern retry --kind file_not_found.")
    public static let fileNotRegular = FailureKind(
        "file_not_regular", .file, retry: .never,
        "The path is a folder, a device or a socket: fix the path, then retry.")
    // Reading the photo from a bucket (ObjectStorage)
    public static let objectStoreRefused = FailureKind(
        "object_store_refused", .system, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The object store refused the worker's credential (its alert names the bucket and the key id): fix the credential or the bucket's policy; the jobs wait."
    )
    public static let bucketNotFound = FailureKind(
        "bucket_not_found", .system, retry: .never,
        "The bucket does not exist at the store's endpoint (a wrong endpoint, region or DISCERN_PATH_ROOTS entry, or the bucket was removed): fix that, then discern retry --kind bucket_not_found."
    )
    public static let objectArchived = FailureKind(
        "object_archived", .file, retry: .never,
        "The object is in an archive storage class (S3 Glacier Flexible Retrieval or Deep Archive, often moved there by a lifecycle rule) and cannot be read until it is restored: restore it (S3 RestoreObject), then discern retry --kind object_archived."
    )
    public static let objectRejected = FailureKind(
        "object_rejected", .file, retry: .never,
        "The object store refused to hand over this object as asked (its S3 error code says why: an object encrypted with a customer key, a request it does not take): fix the object or the store's setting, then retry."
    )
    public static let objectStoreUnavailable = FailureKind(
        "object_store_unavailable", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The object store did not answer, or asked to slow down: retried with backoff; the jobs wait while it is away.")
    // Calling a service (ServiceClients): what every service may answer
    public static let http429 = FailureKind(
        "http_429", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The service said too many requests: retried after its Retry-After; lower its rate limit (discern.rate_limits) if it keeps saying so.")
    public static let http5xx = FailureKind(
        "http_5xx", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The service failed (HTTP 5xx): retried; the breaker holds the jobs while it stays down.")
    public static let http4xx = FailureKind(
        "http_4xx", .job, retry: .never, breaker: .up,
        "The service refused the request (an HTTP 4xx its contract does not name): its message says why.")
    public static let network = FailureKind(
        "network", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The connection failed or was cut: retried; the breaker holds the jobs while the service cannot be reached.")
    public static let tlsFailed = FailureKind(
        "tls_failed", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The service's certificate was not trusted (expired, renamed, or this machine's trust store): fix that; the jobs wait.")
    public static let timeout = FailureKind(
        "timeout", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The service did not answer in time: retried.")
    public static let uploadUrlExpired = FailureKind(
        "upload_url_expired", .service, retry: .yes, breaker: .up,
        "The presigned upload URL expired before the upload: retried with a fresh one.")
    public static let uploadRejected = FailureKind(
        "upload_rejected", .system, retry: .never, breaker: .up,
        "The bucket refused the upload's signature: check the service's signing configuration and this machine's clock.")
    public static let uploadDestinationRefused = FailureKind(
        "upload_destination_refused", .service, retry: .never,
        "The service handed out an upload URL that leads where discern does not send photos (DISCERN_UPLOAD_ALLOWED_HOSTS).")
    public static let analysisFailed = FailureKind(
        "analysis_failed", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The service's analysis failed on its side: retried.")
    public static let badResponse = FailureKind(
        "bad_response", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The service answered something discern cannot read (a cut body, a proxy's page): retried; the breaker holds the jobs while it lasts.")
    public static let serviceIncompatible = FailureKind(
        "service_incompatible", .system, retry: .never, breaker: .up,
        "The service answered in a form this release of discern does not read (a newer response version, an unknown recognition model): upgrade discern or change the service's setting, then retry."
    )
    public static let responseTooLarge = FailureKind(
        "response_too_large", .service, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The service's answer was larger than any answer it documents: retried.")
    public static let unsupportedAction = FailureKind(
        "unsupported_action", .job, retry: .never,
        "The service does not offer the job's action: fix the job's action, then retry.")
    public static let badParams = FailureKind(
        "bad_params", .job, retry: .never,
        "The job's params are missing or wrong for its service: fix them, then retry.")
    public static let authFailed = FailureKind(
        "auth_failed", .system, retry: .yes, attempt: .heldByBreaker, breaker: .down,
        "The service refused discern's credentials (HTTP 401 or 403): fix the service's key; the jobs wait for it.")
    public static let inputRejected = FailureKind(
        "input_rejected", .file, retry: .never, breaker: .up,
        "The service refused this photo: its message says why.")
    public static let rateLimiterUnavailable = FailureKind(
        "rate_limiter_unavailable", .system, retry: .yes, attempt: .notCounted,
        "PostgreSQL could not hand out a rate-limit slot: retried, the attempt not counted.")
    public static let misconfigured = FailureKind(
        "misconfigured", .system, retry: .never,
        "The service's URL or the worker's settings are wrong (its message says which): fix them, then retry.")
    public static let notStarted = FailureKind(
        "not_started", .service, retry: .yes, attempt: .notCounted,
        "The service could not start the work at all: retried, the attempt not counted.")
    public static let rateSlotMissed = FailureKind(
        "rate_slot_missed", .system, retry: .yes, attempt: .notCounted,
        "The worker was too loaded to send within its rate-limit slots: retried, the attempt not counted.")
    public static let cancelled = FailureKind(
        "cancelled", .system, retry: .yes, attempt: .notCounted,
        "The worker stopped during the call: the job went back to the queue, the attempt not counted (never stored as a job's kind).")
    public static let spendCapReached = FailureKind(
        "spend_cap_reached", .system, retry: .yes, attempt: .notCounted,
        "The service's spend cap (discern.service_budgets) is reached: the job waits for room (never stored as a job's kind).")
    // What one service says (ServiceClients/<Service>)
    public static let discernerStartCollision = FailureKind(
        "discerner_start_collision", .service, retry: .yes, attempt: .notCounted,
        "Image Discerner started another analysis in the same second: tried again in the next free second.")
    public static let discernerImageRejected = FailureKind(
        "discerner_image_rejected", .file, retry: .never, breaker: .up,
        "Image Discerner's vision service refused the image: its message says why (size once base64-encoded: DISCERN_DISCERNER_MAX_BYTES).")
    public static let discernerUnsupportedUploadUrl = FailureKind(
        "discerner_unsupported_upload_url", .service, retry: .never, breaker: .up,
        "Image Discerner's upload URL signs a header whose value discern cannot know: the upload would be refused.")
    public static let azureTrainingNotFinished = FailureKind(
        "azure_training_not_finished", .service, retry: .yes, breaker: .up,
        "Azure Face is still training the person group: retried after 30 s.")
    public static let azureFaceNotFound = FailureKind(
        "azure_face_not_found", .service, retry: .yes, breaker: .up,
        "The faceId expired between detect and identify: retried, detecting again.")
    public static let azurePersonGroupNotTrained = FailureKind(
        "azure_person_group_not_trained", .job, retry: .never, breaker: .up,
        "Train the person group, then retry the job.")
    public static let azurePersonGroupNotFound = FailureKind(
        "azure_person_group_not_found", .job, retry: .never, breaker: .up,
        "No such person group: check the job's personGroupId, then retry.")
    public static let azureInvalidImageSize = FailureKind(
        "azure_invalid_image_size", .file, retry: .never, breaker: .up,
        "Azure Face takes 1 KB to 6 MB: nothing to fix but the photo.")
    public static let azureInvalidImage = FailureKind(
        "azure_invalid_image", .file, retry: .never, breaker: .up,
        "Azure Face could not read the photo.")
    public static let azureBadArgument = FailureKind(
        "azure_bad_argument", .job, retry: .never, breaker: .up,
        "Azure Face refused the request's arguments: its message says which.")
    public static let azureUnsupportedFeature = FailureKind(
        "azure_unsupported_feature", .system, retry: .never, breaker: .up,
        "The Azure subscription does not include this feature.")
    public static let ootoEmptyPhoto = FailureKind(
        "ooto_empty_photo", .file, retry: .never, breaker: .up,
        "OOTO received no photo.")
    public static let ootoWrongMimeType = FailureKind(
        "ooto_wrong_mime_type", .file, retry: .never, breaker: .up,
        "OOTO takes JPEG or PNG only.")
    public static let ootoZeroBytePhoto = FailureKind(
        "ooto_zero_byte_photo", .file, retry: .never, breaker: .up,
        "OOTO received an empty photo.")
    public static let ootoUndecodable = FailureKind(
        "ooto_undecodable", .file, retry: .never, breaker: .up,
        "OOTO could not decode the photo.")
    public static let ootoMultipleFaces = FailureKind(
        "ooto_multiple_faces", .file, retry: .never, breaker: .up,
        "The photo shows more than one face: crop it to one person.")
    public static let ootoFaceTooSmall = FailureKind(
        "ooto_face_too_small", .file, retry: .never, breaker: .up,
        "The face is too small to extract (about 200x200 px needed).")
    public static let ootoRefused = FailureKind(
        "ooto_refused", .file, retry: .never, breaker: .up,
        "OOTO refused the request (its code is in the message).")
    public static let landmarkNoImage = FailureKind(
        "landmark_no_image", .file, retry: .never, breaker: .up,
        "The landmark predictor received no image.")
    public static let landmarkInvalidFileType = FailureKind(
        "landmark_invalid_file_type", .file, retry: .never, breaker: .up,
        "The landmark predictor does not take this file type.")
    public static let landmarkFileTooLarge = FailureKind(
        "landmark_file_too_large", .file, retry: .never, breaker: .up,
        "The photo exceeds the landmark predictor's size limit.")
    public static let landmarkRejected = FailureKind(
        "landmark_rejected", .file, retry: .never, breaker: .up,
        "The landmark predictor refused the photo: its message says why.")
    public static let unisseyRejected = FailureKind(
        "unissey_rejected", .file, retry: .never, breaker: .up,
        "Unissey refused the media: its message says why.")
    public static let unisseyTooLarge = FailureKind(
        "unissey_too_large", .file, retry: .never, breaker: .up,
        "The video is too large for Unissey.")
    public static let unisseyIadWithoutMetadata = FailureKind(
        "unissey_iad_without_metadata", .job, retry: .never,
        "Injection-attack detection needs the capture SDK's metadata in the job's params.")
    // The worker and the queue
    public static let serviceNotConfigured = FailureKind(
        "service_not_configured", .system, retry: .yes,
        "The worker that claimed the job is not configured for its service: configure it, or run a worker that is.")
    public static let internalError = FailureKind(
        "internal", .system, retry: .yes,
        "Preparing the photo failed in a way discern does not expect: a bug; its log has the details.")
    public static let resultUnstorable = FailureKind(
        "result_unstorable", .system, retry: .never,
        "PostgreSQL refused to store the result's values (the raw answer is in the job's history): report it.")
    public static let outcomeUnrecorded = FailureKind(
        "outcome_unrecorded", .system, retry: .yes,
        "The worker ran the attempt but could not record what came of it (its log says why: a permission, an unmigrated schema): fix that, then retry."
    )
    public static let leaseExpired = FailureKind(
        "lease_expired", .system, retry: .yes, attempt: .ifPreparingAlone,
        "The worker holding the job stopped (it crashed, hung or lost its database): the job went back to the queue.")
    public static let workerCrashed = FailureKind(
        "worker_crashed", .file, retry: .never,
        "The worker stopped three times while preparing this file alone, or twenty times holding it: the file likely crashes discern; inspect it, then retry."
    )

    /// Every kind, in the order above.
    public static let all: [FailureKind] = [
        imageEmpty, imageUnsupportedFormat, imageUndecodable, imageTruncated, imageTooManyPixels, imageSourceTooLarge,
        imageTooSmall, imageCannotFit, imageUnreadable, imageProcessingFailed, pathNotAllowed, fileNotFound,
        fileNotRegular, objectStoreRefused, bucketNotFound, objectArchived, objectRejected, objectStoreUnavailable, http429, http5xx, http4xx,
        network, tlsFailed,
        timeout, uploadUrlExpired, uploadRejected, uploadDestinationRefused, analysisFailed, badResponse, serviceIncompatible,
        responseTooLarge, unsupportedAction, badParams, authFailed, inputRejected, rateLimiterUnavailable,
        misconfigured, notStarted, rateSlotMissed, cancelled, spendCapReached, discernerStartCollision,
        discernerImageRejected, discernerUnsupportedUploadUrl, azureTrainingNotFinished, azureFaceNotFound,
        azurePersonGroupNotTrained, azurePersonGroupNotFound, azureInvalidImageSize, azureInvalidImage,
        azureBadArgument, azureUnsupportedFeature, ootoEmptyPhoto, ootoWrongMimeType, ootoZeroBytePhoto,
        ootoUndecodable, ootoMultipleFaces, ootoFaceTooSmall, ootoRefused, landmarkNoImage, landmarkInvalidFileType,
        landmarkFileTooLarge, landmarkRejected, unisseyRejected, unisseyTooLarge, unisseyIadWithoutMetadata,
        serviceNotConfigured, internalError, resultUnstorable, outcomeUnrecorded, leaseExpired, workerCrashed
    ]
}
