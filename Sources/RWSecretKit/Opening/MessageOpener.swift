/// Opens a message of any kind the library reads.
public struct MessageOpener: Sendable {
}
