import Postgres
import Testing

@Suite("Binary array parameters")
struct BinaryArrayTests {
    @Test("array_send's layout: header, dimension, then length-prefixed elements; NULL is length -1")
    func layout() throws {
        let bytes = try #require(BinaryArray<Int32>([7, nil]).postgresBinary)
        #expect(
            bytes == [
                0, 0, 0, 1,  // one dimension
                0, 0, 0, 1,  // has NULLs
                0, 0, 0, 23,  // int4
                0, 0, 0, 2, 0, 0, 0, 1,  // two elements, lower bound 1
                0, 0, 0, 4, 0, 0, 0, 7,  // 7
                0xff, 0xff, 0xff, 0xff  // NULL
            ])
    }

    @Test("an empty array has no dimension")
    func empty() {
        #expect(BinaryArray<String>([]).postgresBinary == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25])
    }

    @Test("jsonb elements carry the version byte; text is UTF-8 as it is")
    func elements() throws {
        let json = try #require(BinaryArray([JSONText("{}")]).postgresBinary)
        #expect(Array(json.suffix(7)) == [0, 0, 0, 3, 1, UInt8(ascii: "{"), UInt8(ascii: "}")])
        let text = try #require(BinaryArray(["ü"]).postgresBinary)
        #expect(Array(text.suffix(6)) == [0, 0, 0, 2, 0xc3, 0xbc])
    }

    @Test("the text form quotes and escapes every element")
    func textForm() {
        #expect(BinaryArray<String>(["a\"b", "c\\d", nil]).postgresText == #"{"a\"b","c\\d",NULL}"#)
    }
}
