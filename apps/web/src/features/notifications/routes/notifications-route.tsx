export default function Stub() {
  return <div>Coming</div>;
}
