//! Loopback endpoints that are not Kafka brokers: a closed port, a port that answers in HTTP,
//! a listener that hangs up at once (bad `bootstrap.servers` or `security.protocol`), and one
//! that resets every connection (a broker being killed).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// What a bad endpoint does with a connection.
#[derive(Clone, Copy, Debug)]
pub enum Behaviour {
    /// Nothing listens on the port.
    Closed,
    /// Reads the request, answers with an HTTP error, closes.
    Http,
    /// Reads the request and closes in order, answering nothing: what a TLS listener does with a
    /// plaintext client.
    Hangup,
    /// Waits for the request and closes without reading it, so the kernel resets the connection:
    /// what a broker that is being killed gives.
    Reset,
}

/// A loopback endpoint that is not a Kafka broker; its accept thread ends on drop.
pub struct BadEndpoint {
    /// `host:port` of the endpoint.
    pub address: String,
    running: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl BadEndpoint {
    /// Opens the endpoint on a free loopback port.
    pub fn start(behaviour: Behaviour) -> BadEndpoint {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("local_addr").to_string();
        let running = Arc::new(AtomicBool::new(true));
        if let Behaviour::Closed = behaviour {
            // Dropping the listener frees the port: connections are refused.
            drop(listener);
            return BadEndpoint {
                address,
                running,
                thread: None,
            };
        }
        listener.set_nonblocking(true).expect("nonblocking");
        let r = Arc::clone(&running);
        let thread = thread::spawn(move || {
            while r.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        let _ = stream.set_nonblocking(false);
                        let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
                        let mut buf = [0u8; 512];
                        match behaviour {
                            Behaviour::Http => {
                                let _ = stream.read(&mut buf);
                                let _ = stream.write_all(
                                    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                                );
                            }
                            Behaviour::Hangup => {
                                let _ = stream.read(&mut buf);
                            }
                            // Unread bytes at close: the kernel answers with a reset.
                            Behaviour::Reset => {
                                let _ = stream.peek(&mut buf);
                            }
                            Behaviour::Closed => {}
                        }
                    }
                    // Nothing pending: look again shortly (the thread must notice the drop).
                    Err(_) => thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        BadEndpoint {
            address,
            running,
            thread: Some(thread),
        }
    }
}

impl Drop for BadEndpoint {
    fn drop(&mut self) {
        self.running.store(false, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
