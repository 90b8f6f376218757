//! Loading the transformer from a GGUF file, with the weights converted at load time into types
//! candle multiplies quickly on the CPU.
//!
//! candle has SIMD kernels for Q8_0 and the K-quants but not for Q4_0/Q4_1/Q5_0/Q5_1, whose
//! matmuls run an order of magnitude slower; F32 weights take gemm's blocked path, the fastest
//! for prompt processing. Conversion happens tensor by tensor through [`ConvertingReader`], a
//! virtual GGUF data section that the model constructors read as if it were the file, so at most
//! one converted tensor is buffered besides the model being built.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};

use candle_core::Device;
use candle_core::quantized::gguf_file;
use candle_core::quantized::gguf_file::{Content, TensorInfo};
use candle_core::quantized::{GgmlDType, QTensor};

use super::WeightMode;
use super::error::LoadError;
use super::transformer::{Family, Transformer};

/// Models below this many parameters are small enough to keep entirely in F32.
const F32_PARAMETER_LIMIT: usize = 1_000_000_000;

/// Supported `general.architecture` values.
pub const SUPPORTED_ARCHITECTURES: &[&str] = &["llama", "qwen2"];

/// What loading produced, with the figures the speed report needs.
pub struct LoadedWeights {
    pub transformer: Transformer,
    /// Parameters in the file.
    pub parameters: usize,
    /// Bytes of weights a decode step streams from memory: every matrix as loaded (the token
    /// embedding only when it doubles as the output projection).
    pub bytes_per_token: usize,
    /// How many tensors were converted, and to what, e.g. `210 Q4_1→F32, 1 Q8_0→F32`.
    pub conversions: String,
}

/// Whether a dtype lacks a SIMD matmul kernel in candle.
fn is_slow_kernel(dtype: GgmlDType) -> bool {
    matches!(dtype, GgmlDType::Q4_0 | GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1)
}

fn is_float(dtype: GgmlDType) -> bool {
    matches!(dtype, GgmlDType::F32 | GgmlDType::F16 | GgmlDType::BF16)
}

/// The dtype a tensor is converted to, or `None` to keep it.
fn target_dtype(mode: WeightMode, dtype: GgmlDType, parameters: usize) -> Option<GgmlDType> {
    match mode {
        WeightMode::Keep => None,
        WeightMode::F32 if is_slow_kernel(dtype) => Some(GgmlDType::F32),
        WeightMode::Q8_0 if is_slow_kernel(dtype) => Some(GgmlDType::Q8_0),
        // Q8_0 stays: it has a SIMD kernel, and on the tied output projection (m = 1 in both
        // phases) it reads a quarter of the bytes F32 would, for the same speed and 100 MiB less.
        WeightMode::Auto if parameters < F32_PARAMETER_LIMIT && !is_float(dtype) && dtype != GgmlDType::Q8_0 => {
            Some(GgmlDType::F32)
        }
        WeightMode::Auto if is_slow_kernel(dtype) => Some(GgmlDType::Q8_0),
        _ => None,
    }
}

fn dtype_size(dtype: GgmlDType, elements: usize) -> usize {
    elements / dtype.block_size() * dtype.type_size()
}

/// The architecture named in the file, if supported.
pub fn architecture(content: &Content) -> Result<String, LoadError> {
    let arch = content
        .metadata
        .get("general.architecture")
        .and_then(|v| v.to_string().ok())
        .cloned()
        .ok_or_else(|| LoadError::MissingMetadata("general.architecture".into()))?;
    if SUPPORTED_ARCHITECTURES.contains(&arch.as_str()) {
        Ok(arch)
    } else {
        Err(LoadError::UnsupportedArchitecture(arch))
    }
}

/// Build the transformer of `content` (read from `file`), converting weights per `mode`, with
/// room for `context` positions.
pub fn load(
    content: Content,
    file: BufReader<File>,
    arch: &str,
    mode: WeightMode,
    context: usize,
) -> Result<LoadedWeights, LoadError> {
    let family = Family::from_architecture(arch).ok_or_else(|| LoadError::UnsupportedArchitecture(arch.to_string()))?;
    let source = VirtualSource::new(content, file, mode);
    let (content, mut reader) = (source.content, source.reader);
    let transformer = Transformer::from_gguf(&content, &mut reader, family, context);
    let transformer = match (transformer, reader.error.take()) {
        (_, Some(e)) => return Err(e),
        (t, None) => t.map_err(LoadError::Model)?,
    };
    Ok(LoadedWeights {
        transformer,
        parameters: source.parameters,
        bytes_per_token: source.bytes_per_token,
        conversions: source.conversions,
    })
}

/// A GGUF header describing the converted tensors, and the reader that serves them.
struct VirtualSource {
    content: Content,
    reader: ConvertingReader,
    parameters: usize,
    bytes_per_token: usize,
    conversions: String,
}

impl VirtualSource {
    fn new(content: Content, file: BufReader<File>, mode: WeightMode) -> VirtualSource {
        let parameters: usize = content.tensor_infos.values().map(|t| t.shape.elem_count()).sum();
        let reader = ConvertingReader::new(file, content.tensor_data_offset, &content.tensor_infos, mode, parameters);
        let conversions = reader.describe_conversions();
        let bytes_per_token = reader.bytes_per_token();
        let content = Content {
            magic: content.magic,
            tensor_infos: reader.virtual_infos(),
            tensor_data_offset: 0,
            metadata: content.metadata,
        };
        VirtualSource { content, reader, parameters, bytes_per_token, conversions }
    }
}

/// One tensor of the virtual data section.
struct Slot {
    name: String,
    source: TensorInfo,
    target: Option<GgmlDType>,
    /// Offset and size in the virtual data section.
    start: u64,
    len: u64,
}

/// A `Read + Seek` over a virtual GGUF data section holding the converted tensors, laid out
/// back to back. A tensor is converted when a read first touches it; only the latest one is
/// kept, since the model constructors read each tensor once, in one `read_exact`.
struct ConvertingReader {
    file: BufReader<File>,
    file_data_offset: u64,
    slots: Vec<Slot>,
    total_len: u64,
    pos: u64,
    /// Index into `slots` and bytes of the tensor converted last.
    cached: Option<(usize, Vec<u8>)>,
    /// The first conversion failure, reported instead of the constructor's generic I/O error.
    error: Option<LoadError>,
}

impl ConvertingReader {
    fn new(
        file: BufReader<File>,
        file_data_offset: u64,
        infos: &HashMap<String, TensorInfo>,
        mode: WeightMode,
        parameters: usize,
    ) -> ConvertingReader {
        let mut names: Vec<&String> = infos.keys().collect();
        names.sort_by_key(|n| infos[*n].offset);
        let mut slots = Vec::with_capacity(names.len());
        let mut start = 0u64;
        for name in names {
            let info = &infos[name];
            let elements = info.shape.elem_count();
            let target = target_dtype(mode, info.ggml_dtype, parameters);
            let len = dtype_size(target.unwrap_or(info.ggml_dtype), elements) as u64;
            let source = TensorInfo { ggml_dtype: info.ggml_dtype, shape: info.shape.clone(), offset: info.offset };
            slots.push(Slot { name: name.clone(), source, target, start, len });
            start += len;
        }
        ConvertingReader { file, file_data_offset, slots, total_len: start, pos: 0, cached: None, error: None }
    }

    fn virtual_infos(&self) -> HashMap<String, TensorInfo> {
        self.slots
            .iter()
            .map(|s| {
                let dtype = s.target.unwrap_or(s.source.ggml_dtype);
                (s.name.clone(), TensorInfo { ggml_dtype: dtype, shape: s.source.shape.clone(), offset: s.start })
            })
            .collect()
    }

    fn describe_conversions(&self) -> String {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for s in &self.slots {
            let Some(t) = s.target else { continue };
            let key = format!("{:?}→{t:?}", s.source.ggml_dtype);
            match counts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => counts.push((key, 1)),
            }
        }
        if counts.is_empty() {
            return "none".into();
        }
        counts.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", ")
    }

    fn bytes_per_token(&self) -> usize {
        let untied = self.slots.iter().any(|s| s.name == "output.weight");
        self.slots.iter().filter(|s| !(untied && s.name == "token_embd.weight")).map(|s| s.len as usize).sum()
    }

    fn slot_at(&self, pos: u64) -> Option<usize> {
        let i = self.slots.partition_point(|s| s.start + s.len <= pos);
        (i < self.slots.len()).then_some(i)
    }

    /// The bytes of slot `i` in its target dtype.
    fn converted_bytes(&mut self, i: usize) -> Result<Vec<u8>, LoadError> {
        let slot = &self.slots[i];
        let device = Device::Cpu;
        let failed = |step: String| move |cause: candle_core::Error| LoadError::Tensor { step, cause };
        let original = slot
            .source
            .read(&mut self.file, self.file_data_offset, &device)
            .map_err(failed(format!("reading tensor {}", slot.name)))?;
        let converted = match slot.target {
            None => original,
            Some(dtype) => {
                let dense = original.dequantize(&device).map_err(failed(format!("dequantizing {}", slot.name)))?;
                drop(original);
                QTensor::quantize(&dense, dtype).map_err(failed(format!("converting {} to {dtype:?}", slot.name)))?
            }
        };
        let data = converted.data().map_err(failed(format!("tensor {}", slot.name)))?;
        Ok(data.into_owned())
    }

    fn fill(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some(i) = self.slot_at(self.pos) else { return Ok(0) };
        if self.cached.as_ref().map(|(c, _)| *c) != Some(i) {
            self.cached = None; // free the previous tensor before converting the next
            let bytes = match self.converted_bytes(i) {
                Ok(bytes) => bytes,
                Err(e) => {
                    let io = std::io::Error::other(e.to_string());
                    self.error.get_or_insert(e);
                    return Err(io);
                }
            };
            self.cached = Some((i, bytes));
        }
        let Some((_, bytes)) = &self.cached else { return Ok(0) };
        let within = (self.pos - self.slots[i].start) as usize;
        let n = buf.len().min(bytes.len().saturating_sub(within));
        buf[..n].copy_from_slice(&bytes[within..within + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Read for ConvertingReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.fill(buf)
    }
}

impl Seek for ConvertingReader {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.total_len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| std::io::Error::other("seek before the start of the virtual GGUF"))?;
        Ok(self.pos)
    }
}

/// Read a GGUF header (metadata and tensor table).
pub fn read_content(file: &mut BufReader<File>) -> Result<Content, LoadError> {
    gguf_file::Content::read(file).map_err(LoadError::NotGguf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_mode_picks_f32_for_small_models_and_q8_0_for_large() {
        let small = 135_000_000;
        let large = 7_000_000_000;
        assert_eq!(target_dtype(WeightMode::Auto, GgmlDType::Q4_1, small), Some(GgmlDType::F32));
        assert_eq!(target_dtype(WeightMode::Auto, GgmlDType::Q8_0, small), None);
        assert_eq!(target_dtype(WeightMode::Auto, GgmlDType::Q4K, small), Some(GgmlDType::F32));
        assert_eq!(target_dtype(WeightMode::Auto, GgmlDType::F32, small), None);
        assert_eq!(target_dtype(WeightMode::Auto, GgmlDType::Q4_1, large), Some(GgmlDType::Q8_0));
        assert_eq!(target_dtype(WeightMode::Auto, GgmlDType::Q4K, large), None);
        assert_eq!(target_dtype(WeightMode::Q8_0, GgmlDType::Q5_0, small), Some(GgmlDType::Q8_0));
        assert_eq!(target_dtype(WeightMode::Q8_0, GgmlDType::Q6K, small), None);
        assert_eq!(target_dtype(WeightMode::F32, GgmlDType::Q4_0, large), Some(GgmlDType::F32));
        assert_eq!(target_dtype(WeightMode::Keep, GgmlDType::Q4_0, small), None);
    }
}
