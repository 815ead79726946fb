import Foundation
import Hummingbird

/// Small builders for the simulator's answers.
enum Reply {
    static func json(_ status: HTTPResponse.Status, _ object: Any) -> Response {
        json(status, data: jsonData(object))
    }

    static func json(_ status: HTTPResponse.Status, data: Data) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func jsonData(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    /// S3's error document, with what real S3 adds (for a signature mismatch: the string it
    /// signed and the signature provided), so a client is tested against echoing it.
    static func s3Error(_ status: HTTPResponse.Status, code: String, message: String, extra: [(String, String)] = []) -> Response {
        let more = extra.map { "<\($0.0)>\($0.1)</\($0.0)>" }.joined()
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>\(code)</Code><Message>\(message)</Message>\(more)<RequestId>\(UUID().uuidString)</RequestId></Error>
            """
        return Response(
            status: status, headers: [.contentType: "application/xml"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: xml)))
    }

    /// The request body as a JSON object; nil when it is absent or not an object.
    static func jsonObject(_ buffer: ByteBuffer) -> [String: Any]? {
        guard buffer.readableBytes > 0 else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any]
    }
}
