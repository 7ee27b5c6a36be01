import Tracking

// The JSON bodies of the account, device and group routes (API.md), decoded before the
// handler runs; each field error is a 400 naming the field.

struct SignUpBody: RequestBody {
    let email: String, password: String, displayName: String
    /// An invite code an administrator made (sign-up by invitation).
    let inviteCode: String?
    init(_ body: JSONBody) throws {
        email = try body.string("email")
        password = try body.string("password")
        displayName = try body.string("displayName")
        inviteCode = try body.optionalString("inviteCode")
    }
}

struct SignInBody: RequestBody {
    let email: String, password: String
    init(_ body: JSONBody) throws {
        email = try body.string("email")
        password = try body.string("password")
    }
}

struct DisplayNameBody: RequestBody {
    let displayName: String
    init(_ body: JSONBody) throws { displayName = try body.string("displayName") }
}

struct NewDeviceBody: RequestBody {
    let name: String, platformID: String?
    init(_ body: JSONBody) throws {
        name = try body.string("name")
        platformID = try body.optionalString("platformId")
    }
}

/// `PATCH /v1/devices/{id}`: a new name, the OwnTracks friends setting, or both.
struct DeviceChangeBody: RequestBody {
    let name: String?, receiveGroupLocations: Bool?
    /// `owntracksSecret`: a string sets it, null removes it, absent leaves it.
    let ownTracksSecret: DeviceService.SecretChange?
    init(_ body: JSONBody) throws {
        name = try body.optionalString("name")
        receiveGroupLocations = try body.optionalBool("receiveGroupLocations")
        switch body["owntracksSecret"] {
        case nil: ownTracksSecret = nil
        case .null?: ownTracksSecret = .remove
        case .string(let passphrase)?: ownTracksSecret = .set(passphrase)
        default: throw TrackingError.wrongType("owntracksSecret", expected: "a string or null")
        }
        guard name != nil || receiveGroupLocations != nil || ownTracksSecret != nil else {
            throw TrackingError.invalid("send \"name\", \"receiveGroupLocations\" or \"owntracksSecret\"", code: .missingField)
        }
    }
}

/// `POST /v1/devices/{id}/shares`: an optional label and lifetime (seconds).
struct NewShareBody: RequestBody {
    let name: String?, expiresIn: Int64?
    init(_ body: JSONBody) throws {
        name = try body.optionalString("name")
        expiresIn = try body.optionalInteger("expiresIn")
    }
}

struct NewGroupBody: RequestBody {
    let name: String, deviceID: DeviceID
    init(_ body: JSONBody) throws {
        name = try body.string("name")
        deviceID = DeviceID(try body.string("deviceId"))
    }
}

/// `PATCH /v1/groups/{id}`: the new name.
struct GroupChangeBody: RequestBody {
    let name: String
    init(_ body: JSONBody) throws { name = try body.string("name") }
}

struct NewOwnerBody: RequestBody {
    let userID: UserID
    init(_ body: JSONBody) throws { userID = UserID(try body.string("userId")) }
}

struct InvitationBody: RequestBody {
    let email: String
    init(_ body: JSONBody) throws { email = try body.string("email") }
}

struct AcceptBody: RequestBody {
    let deviceID: DeviceID
    init(_ body: JSONBody) throws { deviceID = DeviceID(try body.string("deviceId")) }
}

struct SharingBody: RequestBody {
    let shareLocation: Bool
    init(_ body: JSONBody) throws { shareLocation = try body.bool("shareLocation") }
}
