"""The peer figure for `examples/embed_speed`: sentence-transformers on torch, 2 threads, the same
256-token texts and batch size. Run side by side with `cargo run --release --example embed_speed
-- 256 16` (alternate the two; the machine is shared). Needs a virtual environment that is not
part of the project:

    python3 -m venv /tmp/stvenv && /tmp/stvenv/bin/pip install sentence-transformers
    /tmp/stvenv/bin/python bench/st_embed_speed.py 256
"""
import os
import sys
import time

import torch
from sentence_transformers import SentenceTransformer

torch.set_num_threads(2)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
model_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "all-MiniLM-L6-v2")
m = SentenceTransformer(model_dir, device="cpu")
m.max_seq_length = 256
base = ("The station wakes from deep sleep, reads the BME280 over the I2C bus, publishes a JSON payload "
        "to the MQTT broker and sleeps again while the solar panel charges the LiPo battery")
texts = [f"{i} {base} {base} {base} {base} {base} {base} {i}" for i in range(n)]
m.encode(texts[:16], batch_size=16)  # warm-up, as embed_speed does
t = time.time()
m.encode(texts, batch_size=16)
s = time.time() - t
print(f"sentence-transformers {torch.__version__}: {n} texts, batch 16: {s:.2f} s, {n / s:.1f} chunks/s")
