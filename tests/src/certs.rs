//! Generated certificates for TLS tests (rcgen, aws-lc-rs): a CA and leaf
//! certificates for `localhost` signed by it, written to a temporary
//! directory when files are needed.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair,
};

/// A test certificate authority.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A certificate with its private key, in PEM.
#[derive(Debug, Clone)]
pub struct Leaf {
    /// The certificate.
    pub cert_pem: String,
    /// Its private key.
    pub key_pem: String,
}

impl TestCa {
    /// A new self-signed CA named `name`.
    pub fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let key = KeyPair::generate().expect("key");
        TestCa {
            issuer: CertifiedIssuer::self_signed(params, key).expect("CA"),
        }
    }

    /// The CA certificate in PEM.
    pub fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// A server certificate for `localhost` and 127.0.0.1.
    pub fn server(&self) -> Leaf {
        self.leaf(ExtendedKeyUsagePurpose::ServerAuth)
    }

    /// A client certificate.
    pub fn client(&self) -> Leaf {
        self.leaf(ExtendedKeyUsagePurpose::ClientAuth)
    }

    fn leaf(&self, purpose: ExtendedKeyUsagePurpose) -> Leaf {
        let key = KeyPair::generate().expect("key");
        let mut params =
            CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
                .expect("params");
        params.extended_key_usages = vec![purpose];
        let cert = params.signed_by(&key, &self.issuer).expect("sign");
        Leaf {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }
}

impl Leaf {
    /// Writes `<name>.crt` and `<name>.key` into `dir`; returns their paths.
    pub fn write(&self, dir: &Path, name: &str) -> (PathBuf, PathBuf) {
        let cert = dir.join(format!("{name}.crt"));
        let key = dir.join(format!("{name}.key"));
        std::fs::write(&cert, &self.cert_pem).expect("write cert");
        std::fs::write(&key, &self.key_pem).expect("write key");
        (cert, key)
    }
}
