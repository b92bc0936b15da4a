//! Kafka ACLs for the tests on a broker started with `--authorizer` (see
//! [`super::secure_kafka::SecureKafka::with_authorizer`]), created through librdkafka's
//! CreateAcls (rust-rdkafka does not wrap it) by a client logged in as the broker's admin user.

use std::ffi::{c_char, CStr, CString};
use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::producer::{BaseProducer, Producer};
use rdkafka_sys as rd;

/// How long one CreateAcls request may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// What an ACL applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    /// A topic, by its literal name.
    Topic(String),
    /// A consumer group, by its literal name.
    Group(String),
    /// The cluster itself (`kafka-cluster`).
    Cluster,
}

/// The operations the checkpoint task's ACLs use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Read,
    Write,
    Create,
    Describe,
}

/// One ALLOW rule for a principal, from any host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acl {
    pub resource: Resource,
    pub operation: Operation,
}

impl Acl {
    pub fn new(resource: Resource, operation: Operation) -> Acl {
        Acl {
            resource,
            operation,
        }
    }
}

fn c_string(s: &str) -> CString {
    CString::new(s).expect("no NUL in ACL fields")
}

/// Creates every rule in `acls` for `User:<user>`, as the client `admin` (librdkafka settings,
/// `bootstrap.servers` included, of a super user). Panics with the broker's answer when any
/// rule is refused. StandardAuthorizer applies new ACLs once they are in the metadata log,
/// which the request waits for.
pub fn grant(admin: &[(String, String)], user: &str, acls: &[Acl]) {
    let mut config = ClientConfig::new();
    for (key, value) in admin {
        config.set(key, value);
    }
    let client: BaseProducer = config
        .create()
        .unwrap_or_else(|e| panic!("admin client for ACLs: {e}"));
    let rk = client.client().native_ptr();
    let principal = c_string(&format!("User:{user}"));
    let host = c_string("*");
    let mut errstr = [0 as c_char; 512];
    let mut bindings: Vec<*mut rd::rd_kafka_AclBinding_t> = Vec::new();
    for acl in acls {
        let (restype, name) = match &acl.resource {
            Resource::Topic(t) => (
                rd::rd_kafka_ResourceType_t::RD_KAFKA_RESOURCE_TOPIC,
                t.as_str(),
            ),
            Resource::Group(g) => (
                rd::rd_kafka_ResourceType_t::RD_KAFKA_RESOURCE_GROUP,
                g.as_str(),
            ),
            Resource::Cluster => (
                rd::rd_kafka_ResourceType_t::RD_KAFKA_RESOURCE_BROKER,
                "kafka-cluster",
            ),
        };
        let operation = match acl.operation {
            Operation::Read => rd::rd_kafka_AclOperation_t::RD_KAFKA_ACL_OPERATION_READ,
            Operation::Write => rd::rd_kafka_AclOperation_t::RD_KAFKA_ACL_OPERATION_WRITE,
            Operation::Create => rd::rd_kafka_AclOperation_t::RD_KAFKA_ACL_OPERATION_CREATE,
            Operation::Describe => rd::rd_kafka_AclOperation_t::RD_KAFKA_ACL_OPERATION_DESCRIBE,
        };
        let name = c_string(name);
        // SAFETY: every string outlives the call, which copies them; errstr is writable and
        // its size is passed.
        let binding = unsafe {
            rd::rd_kafka_AclBinding_new(
                restype,
                name.as_ptr(),
                rd::rd_kafka_ResourcePatternType_t::RD_KAFKA_RESOURCE_PATTERN_LITERAL,
                principal.as_ptr(),
                host.as_ptr(),
                operation,
                rd::rd_kafka_AclPermissionType_t::RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW,
                errstr.as_mut_ptr(),
                errstr.len(),
            )
        };
        assert!(
            !binding.is_null(),
            "ACL {acl:?}: {}",
            // SAFETY: librdkafka wrote a NUL-terminated message into errstr.
            unsafe { CStr::from_ptr(errstr.as_ptr()) }.to_string_lossy()
        );
        bindings.push(binding);
    }
    // SAFETY: rk is the live client above; the queue is ours until destroyed below; the
    // bindings are copied by CreateAcls and destroyed afterwards by us; the event and the
    // results it owns are read before the event is destroyed.
    let refused = unsafe {
        let queue = rd::rd_kafka_queue_new(rk);
        rd::rd_kafka_CreateAcls(
            rk,
            bindings.as_mut_ptr(),
            bindings.len(),
            std::ptr::null(),
            queue,
        );
        let event = rd::rd_kafka_queue_poll(queue, TIMEOUT.as_millis() as i32);
        let mut refused = Vec::new();
        if event.is_null() {
            refused.push(format!("no CreateAcls answer within {TIMEOUT:?}"));
        } else {
            if rd::rd_kafka_event_error(event)
                != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
            {
                refused.push(
                    CStr::from_ptr(rd::rd_kafka_event_error_string(event))
                        .to_string_lossy()
                        .into_owned(),
                );
            }
            let result = rd::rd_kafka_event_CreateAcls_result(event);
            if !result.is_null() {
                let mut count = 0usize;
                let results = rd::rd_kafka_CreateAcls_result_acls(result, &mut count);
                for (i, acl) in acls.iter().enumerate().take(count) {
                    let error = rd::rd_kafka_acl_result_error(*results.add(i));
                    if !error.is_null() {
                        refused.push(format!(
                            "{acl:?}: {}",
                            CStr::from_ptr(rd::rd_kafka_error_string(error)).to_string_lossy()
                        ));
                    }
                }
            }
            rd::rd_kafka_event_destroy(event);
        }
        rd::rd_kafka_queue_destroy(queue);
        rd::rd_kafka_AclBinding_destroy_array(bindings.as_mut_ptr(), bindings.len());
        refused
    };
    assert!(
        refused.is_empty(),
        "CreateAcls for User:{user}: {refused:?}"
    );
    // The controller answered once the ACLs were committed; the broker's authorizer applies
    // them when it replays that record. Wait until the broker itself lists them all.
    super::wait_until(TIMEOUT, "the broker to apply the new ACLs", || {
        described(rk, &principal) >= acls.len()
    });
    client.flush(Duration::ZERO).ok();
}

/// How many ACLs the broker holds for `principal` (DescribeAcls), 0 on any failure.
fn described(rk: *mut rd::rd_kafka_t, principal: &CString) -> usize {
    let mut errstr = [0 as c_char; 512];
    // SAFETY: as in grant: the filter and queue are ours and destroyed here; the event is read
    // before it is destroyed.
    unsafe {
        let filter = rd::rd_kafka_AclBindingFilter_new(
            rd::rd_kafka_ResourceType_t::RD_KAFKA_RESOURCE_ANY,
            std::ptr::null(),
            rd::rd_kafka_ResourcePatternType_t::RD_KAFKA_RESOURCE_PATTERN_ANY,
            principal.as_ptr(),
            std::ptr::null(),
            rd::rd_kafka_AclOperation_t::RD_KAFKA_ACL_OPERATION_ANY,
            rd::rd_kafka_AclPermissionType_t::RD_KAFKA_ACL_PERMISSION_TYPE_ANY,
            errstr.as_mut_ptr(),
            errstr.len(),
        );
        assert!(!filter.is_null(), "ACL filter");
        let queue = rd::rd_kafka_queue_new(rk);
        rd::rd_kafka_DescribeAcls(rk, filter, std::ptr::null(), queue);
        let event = rd::rd_kafka_queue_poll(queue, TIMEOUT.as_millis() as i32);
        let mut count = 0usize;
        if !event.is_null() {
            let result = rd::rd_kafka_event_DescribeAcls_result(event);
            if !result.is_null()
                && rd::rd_kafka_event_error(event)
                    == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
            {
                rd::rd_kafka_DescribeAcls_result_acls(result, &mut count);
            }
            rd::rd_kafka_event_destroy(event);
        }
        rd::rd_kafka_queue_destroy(queue);
        rd::rd_kafka_AclBinding_destroy(filter);
        count
    }
}
