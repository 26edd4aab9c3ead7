import CCipherProvider

/// cipherprovider_pbkdf2 over Swift arrays: the C function takes its inputs as one struct,
/// whose pointers must stay valid for the whole call.
func providerPBKDF2(_ pass: [UInt8], salt: [UInt8], iterations: Int32, digest: Int32, into out: inout [UInt8], length: Int32) -> Int32 {
    pass.withUnsafeBufferPointer { pass in
        salt.withUnsafeBufferPointer { salt in
            var kdf = cipherprovider_kdf(
                pass: pass.baseAddress, pass_length: Int32(pass.count), salt: salt.baseAddress, salt_length: Int32(salt.count),
                iterations: iterations, digest: digest)
            return cipherprovider_pbkdf2(&kdf, &out, length)
        }
    }
}

/// cipherprovider_pbkdf2_search over Swift arrays, without a stop flag.
func providerSearch(_ pass: [UInt8], page1: [UInt8], digest: Int32, maxIterations: Int32, iterations: inout Int32, key: inout [UInt8],
                    match: inout cipherprovider_block_match) -> Int32 {
    pass.withUnsafeBufferPointer { pass in
        page1.withUnsafeBufferPointer { page1 in
            var search = cipherprovider_search(
                pass: pass.baseAddress, pass_length: Int32(pass.count), page1: page1.baseAddress, length: page1.count, digest: digest,
                max_iterations: maxIterations, stop: nil)
            return cipherprovider_pbkdf2_search(&search, &iterations, &key, &match)
        }
    }
}

/// cipherpage_convert over Swift arrays.
func providerConvert(_ from: inout cipherpage_codec, _ to: inout cipherpage_codec, _ input: [UInt8], first: UInt32, count: Int32,
                     into output: inout [UInt8], bad: inout [UInt8]) -> Int32 {
    input.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { output in
            bad.withUnsafeMutableBufferPointer { bad in
                var pages = cipherpage_pages(input: input.baseAddress, first_pgno: first, count: count, output: output.baseAddress, bad: bad.baseAddress)
                return cipherpage_convert(&from, &to, &pages)
            }
        }
    }
}
