import { Loading } from "@/app/_components/ui";

export default function WorkspaceLoading() {
  return <Loading />;
}
