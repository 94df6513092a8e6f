//! `linesig verify --input X.parquet --output Y.parquet`: bulk files.
//!
//! In: a Parquet file with binary (or large_binary, or fixed_size_binary) columns
//! `public_key`, `message`, `signature`, and optionally `context`. Out: the same rows with
//! every input column kept, plus `valid` (bool) and `reason` (string, null when valid).
//! The file is streamed in record batches of `--chunk` rows, so memory stays bounded by
//! one batch and the row groups being decoded, whatever the file's size. A null key,
//! message or signature has no bytes: it verifies as an empty value (`bad_length`), it is
//! never skipped.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, LargeBinaryArray,
    RecordBatch, StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use linesig::{Engine, Item, Verdict};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::args::CliError;
use crate::progress::Progress;

/// Does this path name a Parquet file (by its extension)?
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// What the stream saw.
#[derive(Default)]
pub struct ParquetTally {
    pub rows: usize,
    pub valid: usize,
    pub invalid: usize,
}

pub fn verify_file(
    engine: &Engine,
    input: &Path,
    output: &Path,
    chunk: usize,
    show_progress: bool,
) -> Result<ParquetTally, CliError> {
    if let (Ok(a), Ok(b)) = (input.canonicalize(), output.canonicalize()) {
        if a == b {
            return Err(CliError::usage(
                "--output is the input file; write the verdicts to another file",
            ));
        }
    }
    let read_error = |e: &dyn std::fmt::Display| {
        CliError::io(format!("cannot read {} as Parquet: {e}", input.display()))
    };
    let file = File::open(input)
        .map_err(|e| CliError::io(format!("cannot read {}: {e}", input.display())))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| read_error(&e))?;
    let total_rows = builder.metadata().file_metadata().num_rows().max(0) as u64;
    let input_schema = builder.schema().clone();
    let columns = InputColumns::locate(&input_schema)?;
    let reader = builder
        .with_batch_size(chunk)
        .build()
        .map_err(|e| read_error(&e))?;

    let mut fields: Vec<Arc<Field>> = input_schema.fields().iter().cloned().collect();
    fields.push(Arc::new(Field::new("valid", DataType::Boolean, false)));
    fields.push(Arc::new(Field::new("reason", DataType::Utf8, true)));
    let output_schema = Arc::new(Schema::new_with_metadata(
        fields,
        input_schema.metadata().clone(),
    ));
    let out = File::create(output)
        .map_err(|e| CliError::io(format!("cannot write {}: {e}", output.display())))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let write_error =
        |e: &dyn std::fmt::Display| CliError::io(format!("writing {}: {e}", output.display()));
    let mut writer = ArrowWriter::try_new(out, output_schema.clone(), Some(props))
        .map_err(|e| write_error(&e))?;

    let progress = Progress::new("verified", Some(total_rows), show_progress);
    let mut tally = ParquetTally::default();
    for batch in reader {
        let batch = batch.map_err(|e| read_error(&e))?;
        let keys = BinaryColumn::new(batch.column(columns.public_key))?;
        let messages = BinaryColumn::new(batch.column(columns.message))?;
        let signatures = BinaryColumn::new(batch.column(columns.signature))?;
        let contexts = columns
            .context
            .map(|i| BinaryColumn::new(batch.column(i)))
            .transpose()?;
        let items: Vec<Item<'_>> = (0..batch.num_rows())
            .map(|row| {
                let item = Item::new(keys.get(row), messages.get(row), signatures.get(row));
                match &contexts {
                    Some(c) => item.with_context(c.get(row)),
                    None => item,
                }
            })
            .collect();
        let verdicts = engine.verify(&items);
        let valid: BooleanArray = verdicts.iter().map(|v| Some(v.is_valid())).collect();
        let reason: StringArray = verdicts
            .iter()
            .map(|v| match v {
                Verdict::Valid => None,
                Verdict::Invalid(r) => Some(r.as_str()),
            })
            .collect();
        tally.rows += verdicts.len();
        tally.valid += valid.true_count();
        tally.invalid += valid.false_count();
        let mut out_columns: Vec<ArrayRef> = batch.columns().to_vec();
        out_columns.push(Arc::new(valid));
        out_columns.push(Arc::new(reason));
        let out_batch = RecordBatch::try_new(output_schema.clone(), out_columns)
            .map_err(|e| write_error(&e))?;
        writer.write(&out_batch).map_err(|e| write_error(&e))?;
        progress.inc(verdicts.len() as u64);
    }
    writer.close().map_err(|e| write_error(&e))?;
    progress.finish();
    Ok(tally)
}

/// Where the input columns are.
struct InputColumns {
    public_key: usize,
    message: usize,
    signature: usize,
    context: Option<usize>,
}

impl InputColumns {
    fn locate(schema: &Schema) -> Result<Self, CliError> {
        for taken in ["valid", "reason"] {
            if schema.index_of(taken).is_ok() {
                return Err(CliError::usage(format!(
                    "the input already has a '{taken}' column, which the output adds"
                )));
            }
        }
        let find = |name: &str| -> Result<Option<usize>, CliError> {
            let Ok(index) = schema.index_of(name) else {
                return Ok(None);
            };
            match schema.field(index).data_type() {
                DataType::Binary | DataType::LargeBinary | DataType::FixedSizeBinary(_) => {
                    Ok(Some(index))
                }
                other => Err(CliError::usage(format!(
                    "column '{name}' is {other}; expected binary, large_binary or \
                     fixed_size_binary (raw bytes, not hex)"
                ))),
            }
        };
        let required = |name: &str| {
            find(name)?.ok_or_else(|| {
                CliError::usage(format!(
                    "the input has no '{name}' column (need public_key, message, signature; \
                     context optional)"
                ))
            })
        };
        Ok(InputColumns {
            public_key: required("public_key")?,
            message: required("message")?,
            signature: required("signature")?,
            context: find("context")?,
        })
    }
}

/// One binary column of a batch, whatever its Arrow layout.
enum BinaryColumn<'a> {
    Binary(&'a BinaryArray),
    Large(&'a LargeBinaryArray),
    Fixed(&'a FixedSizeBinaryArray),
}

impl<'a> BinaryColumn<'a> {
    fn new(array: &'a ArrayRef) -> Result<Self, CliError> {
        let any = array.as_any();
        if let Some(a) = any.downcast_ref::<BinaryArray>() {
            Ok(BinaryColumn::Binary(a))
        } else if let Some(a) = any.downcast_ref::<LargeBinaryArray>() {
            Ok(BinaryColumn::Large(a))
        } else if let Some(a) = any.downcast_ref::<FixedSizeBinaryArray>() {
            Ok(BinaryColumn::Fixed(a))
        } else {
            Err(CliError::usage(format!(
                "unexpected column type {}",
                array.data_type()
            )))
        }
    }

    /// The bytes of row `i`; a null has none.
    fn get(&self, i: usize) -> &'a [u8] {
        match self {
            BinaryColumn::Binary(a) if a.is_valid(i) => a.value(i),
            BinaryColumn::Large(a) if a.is_valid(i) => a.value(i),
            BinaryColumn::Fixed(a) if a.is_valid(i) => a.value(i),
            _ => &[],
        }
    }
}
